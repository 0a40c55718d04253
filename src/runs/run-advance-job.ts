import type { NewJob } from '../jobs/job-queue.js';

/**
 * The job kind that moves a run on (RunProgress.advance handles it). Owned by the runs domain; whatever
 * makes progress possible enqueues it in the transaction of its own change: run creation, the apply action,
 * and the task stage side when a stage settles (taskstages is above runs, so it enqueues this job rather
 * than calling run progress back).
 */
export const RUN_ADVANCE_JOB = 'run.advance';

/** In the work lane, in the share of the run's organization (jobs/job-lanes.ts). */
export function runAdvanceJob(runId: string, organizationName: string): NewJob {
  return { kind: RUN_ADVANCE_JOB, payload: { runId }, organizationName };
}
