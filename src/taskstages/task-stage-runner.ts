import type { Kysely } from 'kysely';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import { runAdvanceJob } from '../runs/run-advance-job.js';
import type { TaskStagePort } from '../runs/task-stage-port.js';
import type { Jobs } from '../jobs/jobs.js';
import { parseTimestamps, timestampKey, withTimestamp, withTimestamps } from '../core/status-timestamps.js';
import type { Actor } from '../record/actor.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { stageWords } from '../runs/run-event-descriptions.js';
import { resultsSummary } from './stage-record.js';
import { overrideFactsOf } from './override-facts.js';
import { decideOverride, type OverrideCaller, type OverrideDecision, type OverrideStageFacts } from '../shared/override-rule.js';
import {
  OPEN_POLICY_EVALUATION_STATUSES, OPEN_RESULT_STATUSES, OPEN_STAGE_STATUSES, deriveStageStatus, isFinalResultStatus,
  type EnforcementLevel, type PolicyFacts, type ResultStatus,
} from './stage-status.js';
import type { PolicyEvaluationRow, PolicyEvaluationsRepository, PolicySetOutcomeRow } from './policy-evaluations.repository.js';
import type { OutcomeRow, TaskResultRow, TaskStageRow, TaskStagesRepository } from './task-stages.repository.js';

/** Durable job kinds of task stages and delivery; payloads are plain JSON. */
export const JOB_KINDS = {
  deliver: 'task-result.deliver',
  callbackTimeout: 'task-result.callback-timeout',
  maxDuration: 'task-result.max-duration',
  completeOverride: 'task-stage.complete-override',
  settle: 'task-stage.settle',
  evaluatePolicies: 'policy-evaluation.evaluate',
} as const;

/** What an evaluation job found, written with the evaluation's final status (policy-evaluation-job.ts). */
export interface EvaluationReport {
  status: 'passed' | 'failed' | 'errored';
  hold: PolicyFacts['hold'];
  resultCount: string;
  outcomes: PolicySetOutcomeRow[];
}

/**
 * The job that sends attempt `attempt` of a result, in the delivery lane (jobs/job-lanes.ts): it waits
 * on the task service, so it must not take the slots of run progress and timeouts, and it counts
 * against its organization's share of the lane.
 */
export function deliveryJob(resultId: string, attempt: number, organizationName: string, runAt?: Date): NewJob {
  return {
    kind: JOB_KINDS.deliver,
    payload: { resultId, attempt },
    dedupeKey: `${JOB_KINDS.deliver}:${resultId}:${attempt}`,
    lane: 'delivery',
    organizationName,
    ...(runAt ? { runAt } : {}),
  };
}

function onceAwaitedOverride(stage: TaskStageRow): boolean {
  return parseTimestamps(stage.status_timestamps)[timestampKey('awaiting_override')] !== undefined;
}

/** What a finishing call did, with the result as it wrote it ('changed') or found it ('final'). */
export type Finished = { outcome: 'changed' | 'final'; result: TaskResultRow } | { outcome: 'missing'; result?: undefined };

export interface ResultReport {
  message?: string | null;
  url?: string | null;
  /** Replaces the stored outcomes when given. */
  outcomes?: Array<Omit<OutcomeRow, 'task_result_id'>>;
}

/** The settings the runner needs (from config.ts, passed in services.ts: a domain does not read configuration). */
export interface StageTimeLimits {
  callbackTimeoutSeconds: number;
  maxDurationSeconds: number;
}

/**
 * The life of a task stage after its creation: start (stage running, one delivery job per result),
 * results finishing (callbacks, delivery failures, timeouts), the stage settling by the pure rule of
 * stage-status.ts, overrides completing, and the run closing its open stages. Every write of a status
 * locks the stage first and is conditional on the current status, so concurrent finishers and a
 * restarted node can neither change a final status nor settle a stage twice. (Delivery's writes, the
 * access token and the deadline refresh of markDelivered, are conditional only: they change no status;
 * the timeout that reads the deadline writes only if it is unchanged.)
 */
export class TaskStageRunner implements TaskStagePort {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly stages: TaskStagesRepository,
    private readonly jobs: Jobs,
    private readonly tasks: StageTimeLimits,
    private readonly evaluations: PolicyEvaluationsRepository,
    private readonly recorder: RunRecorder,
  ) {}

  /** Run progress entered the stage: `running` (with `running-at`) and a delivery per result, in the caller's transaction. */
  async start(executor: Executor, taskStageId: string, organizationName: string): Promise<boolean> {
    const stage = await this.stages.findStage(taskStageId, executor);
    if (!stage) return false;
    const now = nowIso();
    const started = await this.stages.updateStage(executor, stage.id, ['pending'], {
      status: 'running',
      status_timestamps: withTimestamp(stage.status_timestamps, 'running', now),
      updated_at: now,
    });
    if (!started) return false;
    const results = await this.stages.resultsOfStages([stage.id], executor);
    const maxDurationAt = new Date(Date.parse(now) + this.tasks.maxDurationSeconds * 1000);
    // One INSERT for the whole stage: a delivery and a deadline per result.
    await this.jobs.enqueueAll(
      executor,
      results.flatMap((result) => [
        deliveryJob(result.id, 1, organizationName),
        { kind: JOB_KINDS.maxDuration, payload: { resultId: result.id }, runAt: maxDurationAt, dedupeKey: `${JOB_KINDS.maxDuration}:${result.id}` },
      ]),
    );
    // The stage's policy evaluation runs as a job: a node that dies mid-evaluation leaves it to another.
    const evaluations = await this.evaluations.ofStages([stage.id], executor);
    if (evaluations.length > 0) {
      await this.jobs.enqueueAll(
        executor,
        evaluations.map((evaluation) => ({
          kind: JOB_KINDS.evaluatePolicies,
          payload: { evaluationId: evaluation.id },
          dedupeKey: `${JOB_KINDS.evaluatePolicies}:${evaluation.id}`,
          organizationName,
        })),
      );
    }
    // Nothing to wait for; settle from a job rather than re-entering run progress from inside it.
    if (results.length === 0 && evaluations.length === 0) {
      await this.jobs.enqueue(executor, { kind: JOB_KINDS.settle, payload: { stageId: stage.id }, dedupeKey: `${JOB_KINDS.settle}:${stage.id}` });
    }
    return true;
  }

  /**
   * The run is canceled or discarded: open results and stages become `canceled`; a stage
   * left in `awaiting_override` by a discard becomes `failed`. Run progress is not told: it is the caller.
   */
  async closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void> {
    const open = await this.stages.stagesOfRunWithStatus(executor, runId, OPEN_STAGE_STATUSES);
    for (const stage of open) await this.stages.lockStage(executor, stage.id);
    const now = nowIso();
    for (const result of await this.stages.resultsOfRunWithStatus(executor, runId, OPEN_RESULT_STATUSES)) {
      await this.stages.updateResult(executor, result.id, OPEN_RESULT_STATUSES, {
        status: 'canceled',
        status_timestamps: withTimestamp(result.status_timestamps, 'canceled', now),
        message: result.message ?? `the run was ${reason === 'cancel' ? 'canceled' : 'discarded'}`,
        updated_at: now,
      });
    }
    for (const evaluation of await this.evaluations.ofRunWithStatus(executor, runId, OPEN_POLICY_EVALUATION_STATUSES)) {
      await this.evaluations.update(executor, evaluation.id, OPEN_POLICY_EVALUATION_STATUSES, {
        status: 'canceled',
        status_timestamps: withTimestamp(evaluation.status_timestamps, 'canceled', now),
        updated_at: now,
      });
    }
    for (const stage of await this.stages.stagesOfRunWithStatus(executor, runId, OPEN_STAGE_STATUSES)) {
      const to = reason === 'discard' && stage.status === 'awaiting_override' ? 'failed' : 'canceled';
      await this.stages.updateStage(executor, stage.id, [stage.status], {
        status: to,
        status_timestamps: withTimestamp(stage.status_timestamps, to, now),
        updated_at: now,
      });
    }
  }

  /**
   * The run ended before these stages: pending ones (and their results) become `unreachable`; a stage still
   * open when the run errored is canceled as by a cancel. Each closed stage is on the run's record.
   */
  async closeUnreachedStages(executor: Executor, runId: string, why: 'errored' | 'finished'): Promise<void> {
    const pending = await this.stages.stagesOfRunWithStatus(executor, runId, ['pending']);
    const now = nowIso();
    for (const stage of pending) {
      await this.stages.lockStage(executor, stage.id);
      if (!(await this.stages.updateStage(executor, stage.id, ['pending'], { status: 'unreachable', status_timestamps: withTimestamp(stage.status_timestamps, 'unreachable', now), updated_at: now }))) continue;
      for (const result of await this.stages.resultsOfStages([stage.id], executor)) {
        await this.stages.updateResult(executor, result.id, ['pending'], {
          status: 'unreachable',
          status_timestamps: withTimestamp(result.status_timestamps, 'unreachable', now),
          message: why === 'errored' ? 'the run errored before this stage' : 'the run finished before this stage',
          updated_at: now,
        });
      }
      await this.recorder.record(executor, {
        runId, action: 'task_stage_unreachable', at: now,
        description: `The ${stageWords(stage.stage)} task stage will not run: the run ${why === 'errored' ? 'errored' : 'finished after its plan'}`,
      });
    }
    if (why === 'errored') await this.closeOpenStages(executor, runId, 'cancel');
  }

  /** Why this stage failed its run: its stage status and the mandatory results that did not pass. */
  async failureReason(executor: Executor, taskStageId: string): Promise<string> {
    const stage = await this.stages.findStage(taskStageId, executor);
    if (!stage) return 'a task stage failed';
    const results = await this.stages.resultsOfStages([stage.id], executor);
    return `the ${stageWords(stage.stage)} task stage ${stage.status}: ${resultsSummary(results, true)}`;
  }

  /**
   * Moves an open result to a final status (with message, url, outcomes) and settles its stage when that
   * was the last open result. `guard` sees the locked, fresh row and may decline (a timeout that was
   * refreshed meanwhile). Answers whether this call wrote the final status, and the result as written.
   */
  async finishResult(
    resultId: string,
    to: Exclude<ResultStatus, 'pending' | 'running'>,
    report: ResultReport = {},
    guard?: (fresh: TaskResultRow) => boolean,
  ): Promise<Finished> {
    return this.db.transaction().execute(async (trx): Promise<Finished> => {
      const stage = await this.stages.lockedStageOfResult(trx, resultId);
      // Read after the lock: every writer of their statuses holds it, so they stay as read until commit.
      const results = stage ? await this.stages.resultsOfStages([stage.id], trx) : [];
      const fresh = results.find((result) => result.id === resultId);
      if (!stage || !fresh) return { outcome: 'missing' };
      if (isFinalResultStatus(fresh.status)) return { outcome: 'final', result: fresh };
      if (guard && !guard(fresh)) return { outcome: 'final', result: fresh };
      const now = nowIso();
      const changes = {
        status: to,
        status_timestamps: withTimestamp(fresh.status_timestamps, to, now),
        ...(report.message !== undefined ? { message: report.message } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        updated_at: now,
      };
      // A guard judged the row as read: the write holds only if it is unchanged (markDelivered refreshes
      // updated_at without the stage lock).
      const ifUpdatedAt = guard ? fresh.updated_at : undefined;
      if (!(await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, changes, ifUpdatedAt))) return { outcome: 'final', result: fresh };
      if (report.outcomes) await this.stages.replaceOutcomes(trx, resultId, report.outcomes.map((o) => ({ ...o, task_result_id: resultId })));
      // Its deadlines can no longer matter: gone now, not hours later (issue 40: `scheduled` grew with every run).
      if (isFinalResultStatus(to)) await this.jobs.cancel(trx, [`${JOB_KINDS.callbackTimeout}:${resultId}`, `${JOB_KINDS.maxDuration}:${resultId}`]);
      const written = { ...fresh, ...changes };
      await this.settleStage(trx, stage, results.map((result) => (result.id === resultId ? written : result)));
      return { outcome: 'changed', result: written };
    });
  }

  /**
   * The task said it is working: `running` with `running-at`, message/url/outcomes if sent, and a fresh
   * callback deadline (a new timeout job keyed by the new update time; older ones find it moved).
   */
  async markRunning(resultId: string, report: ResultReport = {}): Promise<Finished> {
    return this.db.transaction().execute(async (trx): Promise<Finished> => {
      const fresh = await this.lockedResult(trx, resultId);
      if (!fresh) return { outcome: 'missing' };
      if (isFinalResultStatus(fresh.status)) return { outcome: 'final', result: fresh };
      const now = nowIso();
      const changes = {
        status: 'running',
        status_timestamps: withTimestamp(fresh.status_timestamps, 'running', now),
        ...(report.message !== undefined ? { message: report.message } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        updated_at: now,
      };
      if (!(await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, changes))) return { outcome: 'final', result: fresh };
      if (report.outcomes) await this.stages.replaceOutcomes(trx, resultId, report.outcomes.map((o) => ({ ...o, task_result_id: resultId })));
      await this.scheduleCallbackTimeout(trx, resultId, now);
      return { outcome: 'changed', result: { ...fresh, ...changes } };
    });
  }

  /**
   * The task accepted the request: the callback deadline counts from now. Pass the caller's transaction.
   * The update is conditional on an open status, so it needs no read first: a final result stays as it
   * is. It takes no stage lock: it changes no status, and the one decision that reads updated_at, a
   * callback timeout, writes only if updated_at is still what it judged (finishResult's guard).
   * PostgreSQL does the same writes in delivery's single statement (DeliveryRepository.finishAcceptedAttempt).
   */
  async markDelivered(trx: Executor, resultId: string): Promise<void> {
    const now = nowIso();
    if (await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, { updated_at: now })) {
      await this.scheduleCallbackTimeout(trx, resultId, now);
    }
  }

  async scheduleCallbackTimeout(executor: Executor, resultId: string, from: string): Promise<void> {
    await this.jobs.enqueue(executor, this.callbackTimeoutJob(resultId, from));
  }

  /** The job that errors the result unless it hears from the task within the callback timeout of `from`. */
  callbackTimeoutJob(resultId: string, from: string): NewJob {
    return {
      kind: JOB_KINDS.callbackTimeout,
      payload: { resultId },
      runAt: new Date(Date.parse(from) + this.tasks.callbackTimeoutSeconds * 1000),
      // One deadline job per result, moved by every refresh (a chatty task does not pile up rows).
      dedupeKey: `${JOB_KINDS.callbackTimeout}:${resultId}`,
      replace: true,
    };
  }

  /** The evaluation job began: `running` (once; a job run again after a crash finds it running and goes on). */
  async startEvaluation(evaluationId: string): Promise<PolicyEvaluationRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const evaluation = await this.evaluations.find(evaluationId, trx);
      if (!evaluation || !OPEN_POLICY_EVALUATION_STATUSES.includes(evaluation.status as 'pending')) return undefined;
      if (evaluation.status === 'running') return evaluation;
      await this.stages.lockStage(trx, evaluation.task_stage_id);
      const now = nowIso();
      const changes = { status: 'running', status_timestamps: withTimestamp(evaluation.status_timestamps, 'running', now), updated_at: now };
      if (!(await this.evaluations.update(trx, evaluation.id, ['pending'], changes))) return undefined;
      return { ...evaluation, ...changes };
    });
  }

  /**
   * An evaluation finished: its outcomes and final status are written and its stage settles with its results,
   * under the stage lock, once. Answers whether this call wrote it (false: it was final or canceled meanwhile).
   */
  async finishEvaluation(evaluationId: string, report: EvaluationReport): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const first = await this.evaluations.find(evaluationId, trx);
      if (!first) return false;
      const stage = await this.stages.lockedStage(trx, first.task_stage_id);
      const evaluation = await this.evaluations.find(evaluationId, trx);
      if (!stage || !evaluation || !OPEN_POLICY_EVALUATION_STATUSES.includes(evaluation.status as 'pending')) return false;
      const now = nowIso();
      const written = await this.evaluations.update(trx, evaluation.id, OPEN_POLICY_EVALUATION_STATUSES, {
        status: report.status,
        status_timestamps: withTimestamp(evaluation.status_timestamps, report.status, now),
        result_count: report.resultCount,
        hold: report.hold,
        updated_at: now,
      });
      if (!written) return false;
      await this.evaluations.replaceOutcomes(trx, evaluation.id, report.outcomes);
      // The run's record (src/record) has each evaluation, written with it.
      const count = JSON.parse(report.resultCount) as Record<string, number>;
      await this.recorder.record(trx, {
        runId: evaluation.run_id,
        action: `policy_evaluation_${report.status}`,
        description:
          `The policy evaluation ${report.status}: ${count.passed ?? 0} passed, ${count['advisory-failed'] ?? 0} advisory failed, ` +
          `${count['mandatory-failed'] ?? 0} mandatory failed, ${count.errored ?? 0} errored`,
        at: now,
      });
      await this.settleStage(trx, stage, await this.stages.resultsOfStages([stage.id], trx));
      return true;
    });
  }

  /**
   * One person's override of a stage, decided by the override rule (shared/override-rule.ts) on the stage as it
   * is under its lock: `check` first answers who may (the access table's 404 or 403, thrown), then the rule
   * answers whether the stage awaits an override, whether this person already counted, and whether their
   * approval releases it. Each override is recorded and is an event on the run's record. Released, the stage
   * is `running` again (its first `running-at` kept, `overridden-at` added), the policy evaluations that held
   * it become `overridden`, and a job completes it as `passed`; until then it stays `awaiting_override`.
   * Answers the rule's decision and the stage as written.
   */
  async override(
    stageId: string,
    caller: OverrideCaller,
    actor: Actor,
    comment: string | null,
    check: (facts: OverrideStageFacts) => void,
    alsoWrite?: (trx: Executor, approved: { stage: TaskStageRow; approvals: number; required: number; releases: boolean }) => Promise<void>,
  ): Promise<{ decision: OverrideDecision; stage?: TaskStageRow }> {
    return this.db.transaction().execute(async (trx) => {
      const stage = await this.stages.lockedStage(trx, stageId);
      if (!stage) return { decision: { kind: 'not-awaiting', status: 'gone' } };
      const evaluations = await this.evaluations.ofStages([stage.id], trx);
      const overrides = await this.stages.overridesOf([stage.id], trx);
      const facts = overrideFactsOf(stage, await this.stages.resultsOfStages([stage.id], trx), evaluations, overrides);
      check(facts);
      const decision = decideOverride(caller, facts);
      if (decision.kind !== 'approved') return { decision, stage };
      const { approvals, required } = decision;
      const now = nowIso();
      await this.stages.insertOverride(trx, {
        id: newId('tso'), task_stage_id: stage.id, run_id: stage.run_id, overridden_by: caller.overrider, overridden_by_name: actor.name, comment, created_at: now,
      });
      await this.recorder.record(trx, {
        runId: stage.run_id,
        action: 'overridden',
        description: `${actor.name} overrode the ${stageWords(stage.stage)} task stage (${approvals} of ${required} approval${required === 1 ? '' : 's'})`,
        actor,
        comment,
        at: now,
      });
      // In the same transaction (the organization's audit trail).
      await alsoWrite?.(trx, { stage, approvals, required, releases: decision.releases });
      if (!decision.releases) return { decision, stage };
      const changes = { status: 'running', status_timestamps: withTimestamps(stage.status_timestamps, ['running', 'overridden'], now, true), updated_at: now };
      if (!(await this.stages.updateStage(trx, stage.id, ['awaiting_override'], changes))) return { decision: { kind: 'not-awaiting', status: stage.status } };
      // HCP shows a policy evaluation that held the stage as `overridden` once released.
      for (const evaluation of evaluations) {
        if (evaluation.hold !== 'override') continue;
        await this.evaluations.update(trx, evaluation.id, ['failed'], {
          status: 'overridden',
          status_timestamps: withTimestamp(evaluation.status_timestamps, 'overridden', now),
          updated_at: now,
        });
      }
      await this.jobs.enqueue(trx, {
        kind: JOB_KINDS.completeOverride,
        payload: { stageId: stage.id },
        dedupeKey: `${JOB_KINDS.completeOverride}:${stage.id}`,
      });
      return { decision, stage: { ...stage, ...changes } };
    });
  }

  /** Job: an overridden stage passes and the run goes on. Idempotent: only a running, overridden stage moves. */
  async completeOverride(stageId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stage = await this.stages.lockedStage(trx, stageId);
      if (!stage || stage.status !== 'running' || !(await this.stages.findOverride(stageId, trx))) return;
      const now = nowIso();
      const passed = await this.stages.updateStage(trx, stageId, ['running'], {
        status: 'passed',
        status_timestamps: withTimestamp(stage.status_timestamps, 'passed', now),
        updated_at: now,
      });
      if (!passed) return;
      await this.recorder.record(trx, { runId: stage.run_id, action: 'task_stage_passed', description: `The ${stageWords(stage.stage)} task stage passed after its override`, at: now });
      await this.runCanMoveOn(trx, stage.run_id);
    });
  }

  /** Job: re-derive a stage (a stage with no results). */
  async settle(stageId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stage = await this.stages.lockedStage(trx, stageId);
      if (stage) await this.settleStage(trx, stage, await this.stages.resultsOfStages([stageId], trx));
    });
  }

  /**
   * With the stage locked (`stage` and `results` read after the lock, with this transaction's writes):
   * once every result is final, the stage takes the derived status and the run is told.
   */
  private async settleStage(executor: Executor, stage: TaskStageRow, results: readonly TaskResultRow[]): Promise<void> {
    if (stage.status !== 'running') return;
    const evaluations = await this.evaluations.ofStages([stage.id], executor);
    const derived = deriveStageStatus(
      results.map((result) => ({ status: result.status as ResultStatus, enforcementLevel: result.enforcement_level as EnforcementLevel })),
      evaluations.map((evaluation) => ({ status: evaluation.status as PolicyFacts['status'], hold: evaluation.hold as PolicyFacts['hold'] })),
    );
    if (derived === 'running') return;
    // An overridden stage is finished by completeOverride alone; its failed results must not send it back.
    // Only a stage that once awaited an override can have one (override() starts from awaiting_override,
    // whose timestamp stays), so the others need no lookup.
    if (onceAwaitedOverride(stage) && (await this.stages.findOverride(stage.id, executor))) return;
    const now = nowIso();
    const settled = await this.stages.updateStage(executor, stage.id, ['running'], {
      status: derived,
      status_timestamps: withTimestamp(stage.status_timestamps, derived, now),
      updated_at: now,
    });
    if (!settled) return;
    await this.recorder.record(executor, {
      runId: stage.run_id,
      action: `task_stage_${derived}`,
      description: `The ${stageWords(stage.stage)} task stage ${derived === 'awaiting_override' ? 'awaits an override' : derived}: ${resultsSummary(results, false)}`,
      at: now,
    });
    await this.runCanMoveOn(executor, stage.run_id);
  }

  /** A stage settled: the run's next step, as the runs domain's job, in the transaction that settled it. */
  private async runCanMoveOn(executor: Executor, runId: string): Promise<void> {
    await this.jobs.enqueue(executor, runAdvanceJob(runId));
  }

  /** The result, read after taking its stage's row lock (PostgreSQL), so status checks and writes are serialized. */
  private async lockedResult(executor: Executor, resultId: string): Promise<TaskResultRow | undefined> {
    await this.stages.lockStageOfResult(executor, resultId);
    return this.stages.findResult(resultId, executor);
  }
}
