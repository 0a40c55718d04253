import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { Database } from './schema.js';

/** An arbitrary, fixed key: the advisory lock that start-time writes of every node take turns on. */
const START_LOCK_KEY = 724_310_615;

/**
 * Runs the writes a node makes while starting (the site token) in one transaction that nodes starting
 * together take in turn, so each sees what the one before it wrote instead of racing it (two nodes once
 * both inserted one site token: a duplicate key that crashed one of them). PostgreSQL: a transaction-scoped
 * advisory lock, released at commit or rollback. SQLite: every transaction begins IMMEDIATE, which already
 * makes processes take turns.
 */
export async function inStartTransaction<T>(handle: DatabaseHandle, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return handle.db.transaction().execute(async (trx) => {
    if (handle.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${START_LOCK_KEY})`.execute(trx);
    return work(trx);
  });
}
