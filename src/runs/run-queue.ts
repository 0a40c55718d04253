import type { NewJob } from '../jobs/job-queue.js';
import { TERMINAL_STATUSES, type RunStatus } from './run-state-machine.js';

/**
 * One run at a time per workspace (HCP's run queue). A non-speculative run leaves `pending` only when no
 * other non-speculative run of its workspace holds the turn and no earlier one is still pending; it
 * holds the turn from then until it is finished (also while it waits for a confirmation or an override).
 * Plan-only runs never wait and never hold the turn.
 *
 * The rule is decided in the database (runs.repository.ts: `runsAhead`, under the workspace's row lock,
 * so two nodes cannot both start a run of one workspace); a run that gives the turn back enqueues
 * `QUEUE_NEXT_JOB` in the transaction that finished it, and the job wakes the next pending run.
 */
export const QUEUE_NEXT_JOB = 'run.queue-next';

/** In the share of the workspace's organization (jobs/job-lanes.ts). */
export function queueNextJob(workspaceId: string, organizationName: string): NewJob {
  return { kind: QUEUE_NEXT_JOB, payload: { workspaceId }, organizationName };
}

export function isQueueNextPayload(value: unknown): value is { workspaceId: string } {
  return typeof (value as { workspaceId?: unknown } | null)?.workspaceId === 'string';
}

/** Whether a run of this kind takes part in the queue at all (plan-only runs do not). */
export function takesTurns(run: { plan_only: number }): boolean {
  return Number(run.plan_only) !== 1;
}

/**
 * Entering `status` may give the workspace's turn back: a final status, or `applied` (final unless a
 * post-apply stage follows; when one does, the next run finds the turn still held and waits on).
 */
export function mayReleaseTurn(status: RunStatus): boolean {
  return TERMINAL_STATUSES.has(status) || status === 'applied';
}

/**
 * Run statuses in which a run holds no turn: it waits for one (`pending`) or is done. `applied` holds the
 * turn only while a post-apply stage is to come; the SQL asks the run's stages for that.
 */
export const TURNLESS_STATUSES: readonly RunStatus[] = ['pending', ...TERMINAL_STATUSES];
