import type { Executor } from '../jobs/job-queue.js';

/**
 * SQL of a workspace's run queue beside the turn's lock (runs.repository.ts): how long the queue is, and who
 * holds the turn. The one write of the runs domain to the workspaces table: the turn is the runs domain's,
 * and the workspace shows who holds it (HCP's `current-run`, migration 029).
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

/** The workspace's `current-run` becomes the run that took its turn. */
export async function takeWorkspaceTurn(executor: Executor, workspaceId: string, runId: string): Promise<void> {
  await executor.updateTable('workspaces').set({ current_run_id: runId }).where('id', '=', workspaceId).execute();
}
