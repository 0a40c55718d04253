import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

const PLAIN_SELECT = /^\s*select\b/i;

/**
 * The pool Kysely uses on PostgreSQL, counting every statement of this process that may have written:
 * anything but a plain SELECT, COMMIT included. The count moves after the statement completes, so a
 * read that starts after a commit returned sees a new count (http/response-cache.ts relies on it).
 * Counting BEGIN or a read-only transaction's COMMIT only costs a spare cache miss.
 */
export function countingPool(pool: pg.Pool): { pool: PostgresPool; writes: () => number } {
  let writes = 0;
  const wrap = (client: pg.PoolClient): PostgresPoolClient =>
    ({
      query: (text: string, parameters: readonly unknown[]) => {
        if (PLAIN_SELECT.test(text)) return client.query(text, parameters as unknown[]);
        return client.query(text, parameters as unknown[]).finally(() => {
          writes += 1;
        });
      },
      release: () => client.release(),
    }) as unknown as PostgresPoolClient; // Kysely only calls query(sql, parameters): no cursors here
  return {
    pool: { connect: async () => wrap(await pool.connect()), end: () => pool.end() },
    writes: () => writes,
  };
}
