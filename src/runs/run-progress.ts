import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import type { ConfigurationVersionsRepository } from '../workspaces/configuration-versions.repository.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import type { ExecutionContext, RunExecutor } from './executor.js';
import { nextStep, runFacts, type RunSnapshot, type StageSnapshot } from './run-next-step.js';
import { isRunStatus, transition, type RunStatus } from './run-state-machine.js';
import type { PhaseCache, PhaseDetails, RunTransitions } from './run-transitions.js';
import type { RunRow, RunsRepository } from './runs.repository.js';
import type { TaskStagePort } from './task-stage-port.js';

export const RUN_ADVANCE_JOB = 'run.advance';

/** The part of src/jobs run progress uses. */
export interface RunJobs {
  register(kind: string, handler: (payload: any) => Promise<void>): void;
  enqueue(executor: Executor, job: NewJob): Promise<void>;
}

/** Steps one job takes before handing the rest of the run to a fresh job (a bound, not an expected length). */
const MAX_STEPS_PER_JOB = 50;

export function runSnapshot(run: RunRow): RunSnapshot {
  return { status: run.status as RunStatus, planOnly: run.plan_only === 1, autoApply: run.auto_apply === 1 };
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
 * the apply action, and the task stage side when a stage settles (onTaskStageSettled). A crash in the
 * middle of advance leaves its job unfinished, and the job queue runs it again when the lease expires.
 */
export class RunProgress {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runs: RunsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly versions: ConfigurationVersionsRepository,
    private readonly transitions: RunTransitions,
    private readonly executor: RunExecutor,
    private readonly jobs: RunJobs,
    private taskStages: TaskStagePort,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Replaces the task stage side (services.ts wiring; tests that observe stage starts). */
  connectTaskStages(port: TaskStagePort): void {
    this.taskStages = port;
  }

  registerJobs(): void {
    this.jobs.register(RUN_ADVANCE_JOB, async (payload: { runId?: unknown }) => {
      if (typeof payload?.runId === 'string') await this.advance(payload.runId);
    });
  }

  /** Schedules `advance(runId)`; pass the transaction of the change that makes progress possible. */
  async enqueueAdvance(executor: Executor, runId: string): Promise<void> {
    await this.jobs.enqueue(executor, { kind: RUN_ADVANCE_JOB, payload: { runId } });
  }

  /**
   * Called by the task stage side when a stage became passed, failed, errored, unreachable, canceled or
   * awaiting_override (also after an override passed it). Pass the transaction that changed the stage.
   */
  async onTaskStageSettled(runId: string, executor: Executor = this.db): Promise<void> {
    await this.enqueueAdvance(executor, runId);
  }

  /** Cancel and discard close the run's open stages in the transaction that ends the run. */
  async closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void> {
    await this.taskStages.closeOpenStages(executor, runId, reason);
  }

  async advance(runId: string): Promise<void> {
    let budget = MAX_STEPS_PER_JOB;
    while (budget > 0) {
      const batch = await this.steps(runId, budget);
      if (batch.waiting) return;
      budget -= batch.taken;
    }
    await this.enqueueAdvance(this.db, runId);
  }

  /** One step. 'moved' also when another worker moved the run first: the next step re-reads it. */
  async step(runId: string): Promise<'moved' | 'waiting'> {
    return (await this.steps(runId, 1)).waiting ? 'waiting' : 'moved';
  }

  /**
   * Up to `maxSteps` steps. The steps that only write the database (status changes, stage starts) share
   * one transaction, reading the run and its stages once: a run crosses several statuses in a row, and
   * a transaction and two reads per status were most of its cost. A plan or apply runs outside any
   * transaction and ends the batch. `taken` counts steps tried, including one another worker won.
   */
  private async steps(runId: string, maxSteps: number): Promise<{ waiting: boolean; taken: number }> {
    const batch = await this.db.transaction().execute(async (trx) => {
      let run = await this.runs.findRun(runId, trx);
      if (!run) return { waiting: true, taken: 0 }; // deleted with its workspace
      if (!isRunStatus(run.status)) {
        this.log.error({ runId, status: run.status }, 'run has an unknown status; leaving it alone');
        return { waiting: true, taken: 0 };
      }
      let stages = await this.runs.taskStagesOf(runId, trx);
      const phases: PhaseCache = {};
      for (let taken = 0; taken < maxSteps; ) {
        const next = nextStep(runSnapshot(run), stages);
        if (next.kind === 'wait') return { waiting: true, taken };
        if (next.kind === 'execute-plan' || next.kind === 'execute-apply') return { waiting: false, taken, execute: { kind: next.kind, run, stages } };
        const moved = await this.transitions.move(trx, run, next.to, {}, phases);
        taken += 1;
        if (!moved) return { waiting: false, taken }; // another worker moved it first: re-read in a new transaction
        run = moved;
        if (next.kind === 'enter-stage') {
          await this.taskStages.start(trx, next.stageId);
          stages = await this.runs.taskStagesOf(runId, trx);
        }
      }
      return { waiting: false, taken: maxSteps };
    });
    if (!('execute' in batch) || !batch.execute || batch.taken >= maxSteps) return batch;
    const { kind, run, stages } = batch.execute;
    await this.execute(kind === 'execute-plan' ? 'plan' : 'apply', run, stages);
    return { waiting: false, taken: batch.taken + 1 };
  }

  /** Runs the plan or apply outside any transaction, then records its outcome with the run's next status. */
  private async execute(phase: 'plan' | 'apply', run: RunRow, stages: StageSnapshot[]): Promise<void> {
    const context = await this.executionContext(run);
    const outcome = phase === 'plan' ? await this.executor.plan(context) : await this.executor.apply(context);
    const facts = runFacts(runSnapshot(run), stages);
    await this.db.transaction().execute(async (trx) => {
      if (outcome.status === 'finished') {
        const details: PhaseDetails = {
          has_changes: outcome.hasChanges ? 1 : 0,
          resource_additions: outcome.resourceAdditions,
          resource_changes: outcome.resourceChanges,
          resource_destructions: outcome.resourceDestructions,
          ...('jsonOutput' in outcome && typeof outcome.jsonOutput === 'string' ? { json_output: outcome.jsonOutput } : {}),
        };
        const to = transition(run.status as RunStatus, phase === 'plan' ? 'plan_finished' : 'apply_finished', facts)!;
        await this.transitions.move(trx, run, to, phase === 'plan' ? { plans: details } : { applies: details });
      } else {
        this.log.warn({ runId: run.id, executor: this.executor.name, message: outcome.message }, `${phase} errored`);
        await this.transitions.move(trx, run, transition(run.status as RunStatus, 'error', facts)!);
      }
    });
  }

  private async executionContext(run: RunRow): Promise<ExecutionContext> {
    const workspace = await this.workspaces.findById(run.workspace_id);
    return {
      runId: run.id,
      workspaceId: run.workspace_id,
      workspaceName: workspace?.name ?? '',
      organizationName: workspace?.organization_name ?? '',
      configurationVersionId: run.configuration_version_id,
      planOnly: run.plan_only === 1,
      isDestroy: run.is_destroy === 1,
      loadConfiguration: async () => (run.configuration_version_id ? this.versions.readArchive(run.configuration_version_id) : null),
    };
  }
}
