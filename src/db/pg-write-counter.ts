import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { mayChangeIdentity } from './identity-writes.js';
import { PreparedStatements } from './pg-prepared-statements.js';

const PLAIN_SELECT = /^\s*select\b/i;
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end)\b/i;

export interface WriteCounts {
  /** Statements that may have written anything. */
  writes: () => number;
  /** Statements that may have changed what authentication or a standing reads (db/identity-writes.ts). */
  identityWrites: () => number;
}

/**
 * The pool Kysely uses on PostgreSQL. It counts every statement of this process that may have written:
 * anything but a plain SELECT, COMMIT included, and the count moves twice: when the statement is sent and
 * when it completes. A response computed while a commit was in flight was computed under a count that has
 * already moved on (so http/response-cache.ts never serves it), and a read that starts after the commit
 * returned sees a new count. Counting BEGIN or a read-only transaction's COMMIT only costs a spare cache
 * miss. A second, narrower count does the same for identity writes; inside a transaction, the COMMIT or
 * ROLLBACK that ends one counts too, since that is when other connections see it. It also sends queries as
 * prepared statements (pg-prepared-statements.ts).
 */
export function countingPool(pool: pg.Pool): { pool: PostgresPool } & WriteCounts {
  let writes = 0;
  let identityWrites = 0;
  const prepared = new PreparedStatements();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let inTransaction = false;
    let transactionChangedIdentity = false;
    return {
      query: async (text: string, parameters: readonly unknown[]) => {
        const ending = TRANSACTION_END.test(text);
        if (TRANSACTION_START.test(text)) inTransaction = true;
        else if (ending) inTransaction = false;
        if (PLAIN_SELECT.test(text)) return prepared.query(client, text, parameters as unknown[], inTransaction);
        const identity = mayChangeIdentity(text) || (ending && transactionChangedIdentity);
        if (identity && inTransaction) transactionChangedIdentity = true;
        if (ending) transactionChangedIdentity = false;
        writes += 1;
        if (identity) identityWrites += 1;
        try {
          return await prepared.query(client, text, parameters as unknown[], inTransaction);
        } finally {
          writes += 1;
          if (identity) identityWrites += 1;
        }
      },
      release: () => client.release(),
    } as unknown as PostgresPoolClient; // Kysely only calls query(sql, parameters): no cursors here
  };
  return {
    pool: { connect: async () => wrap(await pool.connect()), end: () => pool.end() },
    writes: () => writes,
    identityWrites: () => identityWrites,
  };
}
