import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import type { TaskStagePort } from '../runs/task-stage-port.js';
import type { Jobs } from '../jobs/jobs.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { EvaluationReports, policyEvaluationMembers, type EvaluationReport } from './evaluation-reports.js';
import { ResultReports, taskResultMembers, type Finished, type ResultReport, type StageTimeLimits } from './result-reports.js';
import { StageLifecycle } from './stage-lifecycle.js';
import { StageOverrides } from './stage-override.js';
import { StageSettlement } from './stage-settlement.js';
import type { ResultStatus } from './stage-status.js';
import type { PolicyEvaluationRow, PolicyEvaluationsRepository } from './policy-evaluations.repository.js';
import type { ResultInOrganization, TaskResultRow, TaskStagesRepository } from './task-stages.repository.js';

export { JOB_KINDS, deliveryJob } from './stage-job-kinds.js';
export type { EvaluationReport } from './evaluation-reports.js';
export type { Finished, ResultReport, StageTimeLimits } from './result-reports.js';

/**
 * The task stages' side, wired: one object per audience, each in its own file, meeting only in settlement.
 *
 * - run progress (the runs domain's TaskStagePort): stage-lifecycle.ts
 * - delivery's and callbacks' result reports: result-reports.ts
 * - the policy evaluation job's reports: evaluation-reports.ts
 * - overrides and their completion: stage-override.ts
 * - settlement, where every finisher ends: stage-settlement.ts, over the members that register with it (run
 *   task results, policy evaluations) and the one pure rule of stage-settlement-rule.ts.
 *
 * This class only builds them and keeps the one name the rest of the server and its tests call them by.
 * Every write of a status locks the stage first and is conditional on the current status, so concurrent
 * finishers and a restarted node can neither change a final status nor settle a stage twice.
 */
export class TaskStageRunner implements TaskStagePort {
  readonly settlement: StageSettlement;
  readonly lifecycle: StageLifecycle;
  readonly results: ResultReports;
  readonly evaluationReports: EvaluationReports;
  readonly overrides: StageOverrides;

  constructor(
    db: Kysely<Database>,
    stages: TaskStagesRepository,
    jobs: Jobs,
    limits: StageTimeLimits,
    evaluations: PolicyEvaluationsRepository,
    recorder: RunRecorder,
  ) {
    this.settlement = new StageSettlement(db, stages, jobs, recorder, {
      'task-result': taskResultMembers(stages),
      'policy-evaluation': policyEvaluationMembers(evaluations),
    });
    this.lifecycle = new StageLifecycle(stages, evaluations, jobs, recorder, limits);
    this.results = new ResultReports(db, stages, jobs, limits, this.settlement);
    this.evaluationReports = new EvaluationReports(db, stages, evaluations, recorder, this.settlement);
    this.overrides = new StageOverrides(db, stages, jobs, evaluations, recorder);
  }

  /** Settlement's job and the override's completion, each registered by its owner. */
  registerJobs(): void {
    this.settlement.registerJobs();
    this.overrides.registerJobs();
  }

  // Run progress.
  start(executor: Executor, taskStageId: string, organizationName: string): Promise<boolean> {
    return this.lifecycle.start(executor, taskStageId, organizationName);
  }
  closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void> {
    return this.lifecycle.closeOpenStages(executor, runId, reason);
  }
  closeUnreachedStages(executor: Executor, runId: string, why: 'errored' | 'finished'): Promise<void> {
    return this.lifecycle.closeUnreachedStages(executor, runId, why);
  }
  failureReason(executor: Executor, taskStageId: string): Promise<string> {
    return this.lifecycle.failureReason(executor, taskStageId);
  }

  // Result reports (delivery, callbacks).
  finishResult(resultId: string, to: Exclude<ResultStatus, 'pending' | 'running'>, report?: ResultReport, guard?: (fresh: TaskResultRow) => boolean): Promise<Finished> {
    return this.results.finishResult(resultId, to, report, guard);
  }
  markRunning(resultId: string, report?: ResultReport, seen?: ResultInOrganization): Promise<Finished> {
    return this.results.markRunning(resultId, report, seen);
  }
  markDelivered(trx: Executor, resultId: string, organizationName: string): Promise<void> {
    return this.results.markDelivered(trx, resultId, organizationName);
  }
  scheduleCallbackTimeout(executor: Executor, resultId: string, from: string, organizationName: string): Promise<void> {
    return this.results.scheduleCallbackTimeout(executor, resultId, from, organizationName);
  }
  callbackTimeoutJob(resultId: string, from: string, organizationName: string): NewJob {
    return this.results.callbackTimeoutJob(resultId, from, organizationName);
  }

  // Policy evaluations.
  startEvaluation(evaluationId: string): Promise<PolicyEvaluationRow | undefined> {
    return this.evaluationReports.startEvaluation(evaluationId);
  }
  finishEvaluation(evaluationId: string, report: EvaluationReport): Promise<boolean> {
    return this.evaluationReports.finishEvaluation(evaluationId, report);
  }

  // Overrides and settlement (jobs).
  completeOverride(stageId: string): Promise<void> {
    return this.overrides.completeOverride(stageId);
  }
  settle(stageId: string): Promise<void> {
    return this.settlement.settle(stageId);
  }
}
