import { nowIso } from '../core/clock.js';
import type { Executor } from '../jobs/job-queue.js';
import type { Jobs } from '../jobs/jobs.js';
import { withTimestamp } from '../core/status-timestamps.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { stageWords } from '../runs/run-event-descriptions.js';
import { resultsSummary } from './stage-record.js';
import { JOB_KINDS, deliveryJob } from './stage-job-kinds.js';
import { OPEN_POLICY_EVALUATION_STATUSES, OPEN_RESULT_STATUSES, OPEN_STAGE_STATUSES } from './stage-status.js';
import type { PolicyEvaluationsRepository } from './policy-evaluations.repository.js';
import type { TaskStagesRepository } from './task-stages.repository.js';
import type { StageTimeLimits } from './result-reports.js';

/**
 * A stage's life as run progress sees it: started (running, a delivery per result, a job per policy
 * evaluation), closed when its run is canceled, discarded or ends before it, and why it failed its run.
 * Every write is conditional on the current status, under the stage's lock where a finisher could race.
 */
export class StageLifecycle {
  constructor(
    private readonly stages: TaskStagesRepository,
    private readonly evaluations: PolicyEvaluationsRepository,
    private readonly jobs: Jobs,
    private readonly recorder: RunRecorder,
    private readonly limits: StageTimeLimits,
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
    const maxDurationAt = new Date(Date.parse(now) + this.limits.maxDurationSeconds * 1000);
    // One INSERT for the whole stage: a delivery and a deadline per result.
    await this.jobs.enqueueAll(
      executor,
      results.flatMap((result) => [
        deliveryJob(result.id, 1, organizationName),
        { kind: JOB_KINDS.maxDuration, payload: { resultId: result.id }, runAt: maxDurationAt, dedupeKey: `${JOB_KINDS.maxDuration}:${result.id}`, organizationName },
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
          lane: 'policy' as const,
          organizationName,
        })),
      );
    }
    // Nothing to wait for; settle from a job rather than re-entering run progress from inside it.
    if (results.length === 0 && evaluations.length === 0) {
      await this.jobs.enqueue(executor, { kind: JOB_KINDS.settle, payload: { stageId: stage.id }, dedupeKey: `${JOB_KINDS.settle}:${stage.id}`, organizationName });
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
    const canceled = await this.stages.resultsOfRunWithStatus(executor, runId, OPEN_RESULT_STATUSES);
    for (const result of canceled) {
      await this.stages.updateResult(executor, result.id, OPEN_RESULT_STATUSES, {
        status: 'canceled',
        status_timestamps: withTimestamp(result.status_timestamps, 'canceled', now),
        message: result.message ?? `the run was ${reason === 'cancel' ? 'canceled' : 'discarded'}`,
        updated_at: now,
      });
    }
    // Their deadlines go with them, as with any result that becomes final (result-reports.ts): otherwise each
    // canceled run left a scheduled job per result until it fired, hours later, to find nothing to do.
    if (canceled.length > 0) {
      await this.jobs.cancel(executor, canceled.flatMap((result) => [`${JOB_KINDS.callbackTimeout}:${result.id}`, `${JOB_KINDS.maxDuration}:${result.id}`]));
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
}
