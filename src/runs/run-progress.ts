import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import type { ConfigurationVersionsRepository } from '../workspaces/configuration-versions.repository.js';
import type { ExecutionContext, PhaseOutcome, PlanOutcome, RunExecutor } from './executor.js';
import { nextStep, runFacts, type RunSnapshot, type StageSnapshot } from './run-next-step.js';
import { isRunStatus, transition, type RunFacts, type RunStatus } from './run-state-machine.js';
import type { PhaseCache, PhaseDetails, RunTransitions, TransitionCause } from './run-transitions.js';
import { stageOfStatus } from './run-state-machine.js';
import type { PhaseTable, RunRow, RunsRepository, WorkspaceNames } from './runs.repository.js';
import type { RunInOrganization } from './run-in-organization.js';
import type { TaskStagePort } from './task-stage-port.js';
import { RUN_ADVANCE_JOB, runAdvanceJob } from './run-advance-job.js';
import { QUEUE_NEXT_JOB, isQueueNextPayload, takesTurns } from './run-queue.js';
import { executionModeOf } from '../workspaces/execution-mode.js';

/** The part of src/jobs run progress uses. */
export interface RunJobs {
  register(kind: string, handler: (payload: any) => Promise<void>): void;
  enqueue(executor: Executor, job: NewJob): Promise<void>;
}

/** A plan or apply to run next, with what was read before it (see RunProgress.execute). */
interface Execution {
  phase: 'plan' | 'apply';
  run: RunInOrganization;
  planHasChanges: boolean;
  workspace: WorkspaceNames;
  stages: StageSnapshot[];
  phases: PhaseCache;
}

/** A status change already decided (a phase's outcome) with what it writes on the plan or apply. */
interface FirstStep {
  to: RunStatus;
  details: Partial<Record<PhaseTable, PhaseDetails>>;
  /** Why, when the outcome errored the run. */
  cause?: TransitionCause;
}

/** What a batch of steps came to: the run waits, or `taken` steps were tried and maybe a plan or apply is next. */
interface Batch {
  waiting: boolean;
  taken: number;
  execute?: Execution;
}

/** Steps one job takes before handing the rest of the run to a fresh job (a bound, not an expected length). */
const MAX_STEPS_PER_JOB = 50;

/** `planHasChanges`: the run's plan's has-changes as read with the run (runsRepository.runWithStages). */
export function runSnapshot(run: RunRow, planHasChanges: boolean): RunSnapshot {
  return {
    status: run.status,
    planOnly: run.plan_only === 1,
    autoApply: run.auto_apply === 1,
    agent: executionModeOf(run.execution_mode) === 'agent',
    planHasChanges,
  };
}

/**
 * Moves runs forward, durably. `advance(runId)` is the handler of the `run.advance` job: it reads the
 * run and its task stages, asks run-next-step.ts what comes next, does it in one transaction (run
 * status compare-and-set, plus the stage start or phase result that belongs to it), and repeats until
 * the run waits for something outside: a task stage, an override, a confirmation, or nothing (done).
 *
 * Every step is idempotent: it is decided from the database and committed with a compare-and-set, so
 * a job run twice after a crash, or by two nodes at once, moves the run exactly once. Progress is
 * resumed by whatever enqueues `run.advance` in the same transaction as its own change: run creation,
 * the apply action, and the task stage side when a stage settles (stage-settlement.ts). A crash in the
 * middle of advance leaves its job unfinished, and the job queue runs it again when the lease expires.
 */
export class RunProgress {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runs: RunsRepository,
    private readonly versions: ConfigurationVersionsRepository,
    private readonly transitions: RunTransitions,
    private readonly executor: RunExecutor,
    private readonly jobs: RunJobs,
    private readonly taskStages: TaskStagePort,
    private readonly log: FastifyBaseLogger,
  ) {}

  registerJobs(): void {
    this.jobs.register(RUN_ADVANCE_JOB, async (payload: { runId?: unknown }) => {
      if (typeof payload?.runId === 'string') await this.advance(payload.runId);
    });
    // A run gave its workspace's turn back (run-queue.ts): the next pending run may take it.
    this.jobs.register(QUEUE_NEXT_JOB, async (payload: unknown) => {
      if (!isQueueNextPayload(payload)) return;
      const next = await this.runs.headOfQueue(payload.workspaceId);
      if (next) await this.advance(next);
    });
  }

  /**
   * Schedules `advance(runId)`, in the share of the run's organization; pass the transaction of the change
   * that makes progress possible.
   */
  async enqueueAdvance(executor: Executor, runId: string, organizationName: string): Promise<void> {
    await this.jobs.enqueue(executor, this.advanceJob(runId, organizationName));
  }

  /** The job of `advance(runId)`, for a statement that inserts it with its own change (a new run on PostgreSQL). */
  advanceJob(runId: string, organizationName: string): NewJob {
    return runAdvanceJob(runId, organizationName);
  }

  /** Cancel and discard close the run's open stages in the transaction that ends the run. */
  async closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void> {
    await this.taskStages.closeOpenStages(executor, runId, reason);
  }

  async advance(runId: string): Promise<void> {
    let budget = MAX_STEPS_PER_JOB;
    let batch = await this.steps(runId, budget);
    for (;;) {
      if (batch.waiting) return;
      budget -= batch.taken;
      if (budget <= 0) break;
      batch = batch.execute ? await this.execute(batch.execute, budget) : await this.steps(runId, budget);
    }
    // Its budget spent (a long walk, rare): the rest in a job of its own, in its organization's turn.
    const found = await this.runs.runWithStages(runId);
    if (found) await this.enqueueAdvance(this.db, runId, found.run.organizationName);
  }

  /** One step. 'moved' also when another worker moved the run first: the next step re-reads it. */
  async step(runId: string): Promise<'moved' | 'waiting'> {
    const batch = await this.steps(runId, 1);
    if (batch.waiting) return 'waiting';
    if (batch.execute) await this.execute(batch.execute, 1);
    return 'moved';
  }

  /**
   * Up to `maxSteps` steps that only write the database (status changes, stage starts), in one
   * transaction that reads the run and its stages once: a run crosses several statuses in a row, and a
   * transaction and two reads per status were most of its cost. Ends before a plan or apply, which
   * runs outside any transaction (`execute` in the answer).
   */
  private async steps(runId: string, maxSteps: number): Promise<Batch> {
    return this.db.transaction().execute(async (trx): Promise<Batch> => {
      const found = await this.runs.runWithStages(runId, trx);
      if (!found) return { waiting: true, taken: 0 }; // deleted with its workspace
      if (!isRunStatus(found.run.status)) {
        this.log.error({ runId, status: found.run.status }, 'run has an unknown status; leaving it alone');
        return { waiting: true, taken: 0 };
      }
      return this.walk(trx, found.run, found.planHasChanges, found.workspace, found.stages, {}, maxSteps);
    });
  }

  /**
   * Takes up to `maxSteps` steps from `run` and `stages` as they stand in `trx`, after `first` if given
   * (a phase's outcome, not counted). `taken` counts steps tried, including ones another worker won (the
   * run is then re-read in a new transaction). Status changes in a row are written as one
   * (RunTransitions.moveThrough); a stage start needs its status written first, as does the end of the walk.
   */
  private async walk(
    trx: Executor,
    run: RunInOrganization,
    planHasChanges: boolean,
    workspace: WorkspaceNames,
    stages: StageSnapshot[],
    phases: PhaseCache,
    maxSteps: number,
    first?: FirstStep,
  ): Promise<Batch> {
    let path: RunStatus[] = first ? [first.to] : [];
    let details = first?.details ?? {};
    let cause: TransitionCause = first?.cause ?? {};
    /** Writes the statuses decided so far; false when another worker moved the run first. */
    const flush = async (): Promise<boolean> => {
      if (path.length === 0) return true;
      const moved = await this.transitions.moveThrough(trx, run, path, details, phases, cause);
      path = [];
      details = {};
      cause = {};
      if (moved) run = moved;
      return moved !== undefined;
    };
    let taken = 0;
    while (taken < maxSteps) {
      const decided = path.length === 0 ? run : { ...run, status: path[path.length - 1]! };
      const snapshot = runSnapshot(decided, planHasChanges);
      // A pending run takes its turn only when nobody is ahead of it, decided under the workspace's lock.
      if (decided.status === 'pending' && takesTurns(run)) {
        await this.runs.lockWorkspaceTurn(trx, run.workspace_id);
        snapshot.waitsForTurn = (await this.runs.runsAhead(trx, run)) > 0;
      }
      const next = nextStep(snapshot, stages);
      if (next.kind === 'wait') return { waiting: await flush(), taken };
      if (next.kind === 'execute-plan' || next.kind === 'execute-apply') {
        if (!(await flush())) return { waiting: false, taken };
        return { waiting: false, taken, execute: { phase: next.kind === 'execute-plan' ? 'plan' : 'apply', run, planHasChanges, workspace, stages, phases } };
      }
      if (next.kind === 'transition' && next.to === 'errored') cause = { reason: await this.errorReason(trx, decided.status, stages) };
      path.push(next.to);
      taken += 1;
      if (next.kind !== 'enter-stage') continue;
      if (!(await flush())) return { waiting: false, taken }; // another worker moved it first: re-read in a new transaction
      const started = await this.taskStages.start(trx, next.stageId, workspace.organizationName);
      // Started: the stage is running now, as a re-read would say. Not started: find out why.
      stages = started
        ? stages.map((stage) => (stage.id === next.stageId ? { ...stage, status: 'running' } : stage))
        : await this.runs.taskStagesOf(run.id, trx);
    }
    await flush(); // won or lost, the next batch re-reads the run
    return { waiting: false, taken };
  }

  /**
   * Runs the plan or apply outside any transaction, then records its outcome with the run's next status
   * and, in the same transaction, takes the steps that follow (up to `budget` in all, this one included).
   * The run, stages and phases read before the plan still hold when the outcome's compare-and-set wins:
   * nothing changes a run's stages or phases without moving the run (phases: run-transitions.ts; stages:
   * a start follows the run's own move, a close its cancel or discard), and a run never returns to a
   * status it left.
   */
  private async execute({ phase, run, planHasChanges, workspace, stages, phases }: Execution, budget: number): Promise<Batch> {
    const context = this.executionContext(run, workspace);
    const outcome = phase === 'plan' ? await this.executor.plan(context) : await this.executor.apply(context);
    const facts = runFacts(runSnapshot(run, planHasChanges), stages);
    const hasChangesAfter = phase === 'plan' && outcome.status === 'finished' ? outcome.hasChanges : planHasChanges;
    if (outcome.status !== 'finished') this.log.warn({ runId: run.id, executor: this.executor.name, message: outcome.message }, `${phase} errored`);
    const recorded = this.outcomeStep(run, phase, outcome, facts);
    try {
      return await this.db.transaction().execute(async (trx): Promise<Batch> => {
        const after = await this.walk(trx, run, hasChangesAfter, workspace, stages, phases, budget - 1, recorded);
        return { ...after, taken: after.taken + 1 };
      });
    } catch (error) {
      // The steps after the outcome failed and took the outcome with them: keep the outcome (as if they
      // had been a transaction of their own), so the job's retry goes on from there instead of
      // executing the phase again. Idempotent: a recorded outcome makes this compare-and-set fail. The
      // phases are read again: the failed transaction may have moved the cached ones on. If this fails
      // too, the job's retry executes the phase again, as after a crash (executor.ts allows for that).
      await this.db.transaction().execute((trx) => this.transitions.move(trx, run, recorded.to, recorded.details, {}, recorded.cause)).catch(() => {});
      throw error;
    }
  }

  /** Why run progress errors a run in `status`: the stage that failed it, in words, or the status it could not leave. */
  private async errorReason(trx: Executor, status: RunStatus, stages: StageSnapshot[]): Promise<string> {
    const inStage = stageOfStatus(status);
    const stage = inStage && stages.find((candidate) => candidate.stage === inStage.stage);
    if (stage) return this.taskStages.failureReason(trx, stage.id);
    if (inStage) return `the run was ${status} but has no ${inStage.stage} task stage`;
    return `the run was ${status}, a status it cannot go on from`;
  }

  /** The run's status after the phase's outcome, with what the outcome writes on the phase. */
  private outcomeStep(run: RunRow, phase: 'plan' | 'apply', outcome: PlanOutcome | PhaseOutcome, facts: RunFacts): FirstStep {
    if (outcome.status !== 'finished') {
      const reason = `the ${phase} errored${outcome.message ? `: ${outcome.message}` : ''}`;
      return { to: transition(run.status, 'error', facts)!, details: {}, cause: { reason } };
    }
    const details: PhaseDetails = {
      has_changes: outcome.hasChanges ? 1 : 0,
      resource_additions: outcome.resourceAdditions,
      resource_changes: outcome.resourceChanges,
      resource_destructions: outcome.resourceDestructions,
      ...('jsonOutput' in outcome && typeof outcome.jsonOutput === 'string' ? { planJson: outcome.jsonOutput } : {}),
    };
    const to = transition(run.status, phase === 'plan' ? 'plan_finished' : 'apply_finished', facts)!;
    return { to, details: phase === 'plan' ? { plans: details } : { applies: details } };
  }

  private executionContext(run: RunRow, workspace: WorkspaceNames): ExecutionContext {
    return {
      runId: run.id,
      workspaceId: run.workspace_id,
      workspaceName: workspace.name,
      organizationName: workspace.organizationName,
      configurationVersionId: run.configuration_version_id,
      planOnly: run.plan_only === 1,
      isDestroy: run.is_destroy === 1,
      loadConfiguration: async () => (run.configuration_version_id ? this.versions.readArchive(run.configuration_version_id) : null),
    };
  }
}
