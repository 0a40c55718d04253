import type { QueryCreator } from 'kysely';
import { fixed } from '../db/compiled-query.js';
import type { Database } from '../db/schema.js';
import { OPEN_RESULT_STATUSES } from './stage-status.js';

/*
 * Writes of `task_results` that delivery makes inside statements of its own (one round trip each on
 * PostgreSQL, see delivery.repository.ts). Task stages own the table (issue 15: each table has one
 * owning repository), so the writes are built here and delivery composes them. Each takes the query
 * creator it runs in: the Kysely instance, or a `with` of a larger statement.
 */

/** Kysely's types cannot follow a generic schema; these writes name only tables of Database. */
const plain = <DB extends Database>(creator: QueryCreator<DB>) => creator as unknown as QueryCreator<Database>;

/**
 * The newest access token's digest goes on the result, only while it is `pending`: that conditional
 * write is delivery's last look at the status before a request goes out.
 */
export function pendingResultTokenWrite<DB extends Database>(creator: QueryCreator<DB>, p: { tokenHash: string; resultId: string }) {
  return plain(creator).updateTable('task_results').set({ access_token_hash: p.tokenHash }).where('id', '=', p.resultId).where('status', '=', fixed('pending'));
}

/** An accepted delivery restarts the result's callback deadline (updated_at), unless it is final meanwhile. */
export function openResultRefresh<DB extends Database>(creator: QueryCreator<DB>, p: { resultId: string; now: string }) {
  return plain(creator)
    .updateTable('task_results')
    .set({ updated_at: p.now })
    .where('id', '=', p.resultId)
    .where('status', 'in', OPEN_RESULT_STATUSES.map(fixed))
    .returning('id');
}
