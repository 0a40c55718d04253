import type { Executor } from '../jobs/job-queue.js';

/**
 * HCP's `current-run` (migration 029): the workspaces domain owns the column; the runs domain calls this in the
 * transaction in which a run takes its workspace's turn (runs/run-transitions.ts).
 */
export async function takeWorkspaceTurn(executor: Executor, workspaceId: string, runId: string): Promise<void> {
  await executor.updateTable('workspaces').set({ current_run_id: runId }).where('id', '=', workspaceId).execute();
}
