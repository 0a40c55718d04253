import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../jobs/job-queue.js';
import type { Database } from '../db/schema.js';
import { TURNLESS_STATUSES } from './run-queue.js';

/**
 * SQL of a workspace's run queue beside the turn's lock (runs.repository.ts): how long the queue is and which
 * runs stand before one. Who holds the turn is written by the workspaces domain (workspaces/workspace-current-run.ts).
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

type QueuedRun = { id: string; workspace_id: string; created_at: string };

/**
 * The runs (`runs as r`) that come before `run` in its workspace's queue: the run holding the turn (a
 * non-speculative run that is neither pending nor finished) and the non-speculative runs pending since before it.
 * One condition for counting them (runsAhead) and for moving them aside (force-execute).
 */
export function aheadInQueue(eb: ExpressionBuilder<Database & { r: Database['runs'] }, 'r'>, run: QueuedRun) {
  return eb.and([
    eb('r.workspace_id', '=', run.workspace_id),
    eb('r.id', '<>', run.id),
    eb('r.plan_only', '=', 0),
    eb.or([
      eb.and([
        eb('r.status', '=', 'pending'),
        eb.or([eb('r.created_at', '<', run.created_at), eb.and([eb('r.created_at', '=', run.created_at), eb('r.id', '<', run.id)])]),
      ]),
      eb.and([
        eb('r.status', 'not in', [...TURNLESS_STATUSES]),
        // `applied` holds the turn only while a post-apply stage is to come.
        eb.or([
          eb('r.status', '<>', 'applied'),
          eb.exists(eb.selectFrom('task_stages as s').select('s.id').whereRef('s.run_id', '=', 'r.id').where('s.stage', '=', 'post_apply')),
        ]),
      ]),
    ]),
  ]);
}

/** The ids of the runs ahead of `run` in its queue, the one holding the turn first. */
export async function runIdsAhead(executor: Executor, run: QueuedRun): Promise<string[]> {
  const rows = await executor
    .selectFrom('runs as r')
    .select(['r.id', 'r.status'])
    .where((eb) => aheadInQueue(eb, run))
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  const holding = rows.filter((row) => row.status !== 'pending');
  return [...holding, ...rows.filter((row) => row.status === 'pending')].map((row) => row.id);
}
