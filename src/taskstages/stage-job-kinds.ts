import type { NewJob } from '../jobs/job-queue.js';

/** Durable job kinds of task stages and delivery; payloads are plain JSON. */
export const JOB_KINDS = {
  deliver: 'task-result.deliver',
  callbackTimeout: 'task-result.callback-timeout',
  maxDuration: 'task-result.max-duration',
  completeOverride: 'task-stage.complete-override',
  settle: 'task-stage.settle',
  evaluatePolicies: 'policy-evaluation.evaluate',
} as const;

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
