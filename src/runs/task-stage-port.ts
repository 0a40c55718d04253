import type { Executor } from '../jobs/job-queue.js';

/**
 * What run progress needs from the task stage side (src/taskstages). Both calls run inside the
 * caller's transaction (`executor`), together with the run status change they belong to.
 *
 * The implementation reports back by enqueueing the run's advance job (run-advance-job.ts) whenever
 * a stage becomes passed, failed, errored, unreachable, canceled or awaiting_override.
 */
export interface TaskStagePort {
  /**
   * The run has just entered this stage (`<stage>_running`): make the stage running and send its results'
   * requests. Answers whether it did; false when the stage was not pending (nothing was written).
   * `organizationName` is the run's: its requests count against that organization's share of delivery.
   */
  start(executor: Executor, taskStageId: string, organizationName: string): Promise<boolean>;
  /** The run is being canceled or discarded: close every open stage and result of it. */
  closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void>;
  /**
   * The run ended without reaching its later stages (it errored, or finished after its plan): stages still
   * `pending` become `unreachable` (and their results too); a stage still open when the run errored is
   * canceled. In the caller's transaction.
   */
  closeUnreachedStages(executor: Executor, runId: string, why: 'errored' | 'finished'): Promise<void>;
  /** Why this stage failed the run, in words for the run's `error-message` (its results that did not pass). */
  failureReason(executor: Executor, taskStageId: string): Promise<string>;
}
