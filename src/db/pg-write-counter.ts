import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { PreparedStatements } from './pg-prepared-statements.js';

const PLAIN_SELECT = /^\s*select\b/i;
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end)\b/i;

/**
 * The pool Kysely uses on PostgreSQL. It counts every statement of this process that may have written:
 * anything but a plain SELECT, COMMIT included, and the count moves twice: when the statement is sent and
 * when it completes. A response computed while a commit was in flight was computed under a count that has
 * already moved on (so http/response-cache.ts never serves it), and a read that starts after the commit
 * returned sees a new count. Counting BEGIN or a read-only transaction's COMMIT only costs a spare cache
 * miss. It also sends queries as prepared statements (pg-prepared-statements.ts).
 */
export function countingPool(pool: pg.Pool): { pool: PostgresPool; writes: () => number } {
  let writes = 0;
  const prepared = new PreparedStatements();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let inTransaction = false;
    return {
      query: async (text: string, parameters: readonly unknown[]) => {
        if (TRANSACTION_START.test(text)) inTransaction = true;
        else if (TRANSACTION_END.test(text)) inTransaction = false;
        if (PLAIN_SELECT.test(text)) return prepared.query(client, text, parameters as unknown[], inTransaction);
        writes += 1;
        try {
          return await prepared.query(client, text, parameters as unknown[], inTransaction);
        } finally {
          writes += 1;
        }
      },
      release: () => client.release(),
    } as unknown as PostgresPoolClient; // Kysely only calls query(sql, parameters): no cursors here
  };
  return {
    pool: { connect: async () => wrap(await pool.connect()), end: () => pool.end() },
    writes: () => writes,
  };
}
