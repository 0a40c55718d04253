import type { Executor } from '../jobs/job-queue.js';

/**
 * SQL of a workspace's run queue beside the turn's lock (runs.repository.ts): how long the queue is. Who holds
 * the turn is written by the workspaces domain (workspaces/workspace-current-run.ts).
 */

/** How many runs wait `pending` in the workspace's queue (TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE). */
export async function pendingRunsOf(executor: Executor, workspaceId: string): Promise<number> {
  const row = await executor
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
