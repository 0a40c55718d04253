import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** PostgreSQL's answer when a prepared `select *` meets a table whose columns changed (another node migrated). */
function isStalePlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '0A000' && /cached plan must not change result type/.test(message ?? '');
}

/**
 * A `*` that expands to a table's columns (`select *`, `"runs".*`, `returning *`), not `count(*)`. A text
 * with one may be a false positive (a product `a * b`): it then only loses its name inside transactions.
 */
const STAR_PROJECTION = /(?<!\()\*/;

const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end)\b/i;

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it on every execution (measured: about a
 * third of the fan-out's time on PostgreSQL). A named query (node-postgres's public query config
 * `{ name, text, values }`) is prepared once per connection and then only bound and executed. Query texts
 * repeat (values are parameters); `in (…)` lists of varying length make more texts, so only the first
 * `capacity` distinct texts get a name, which bounds the prepared statements per connection.
 *
 * After another node's migration adds a column, a prepared statement whose `*` expands to that table's
 * columns fails once per connection ("cached plan must not change result type": the row type changed).
 * Outside a transaction the text then gets a new name (prepared afresh everywhere) and the query is simply
 * sent again. Inside one the error has already aborted the transaction and no retry is safe (the code around
 * it acted on earlier answers), so such texts are never named there: unnamed, PostgreSQL expands the `*`
 * anew each time. Explicit column lists are named everywhere: migrations only add (docs/operations.md,
 * "Upgrades"), so their result type never changes. This is what lets this release be the previous one in a
 * rolling upgrade without a 5xx (test/system/rolling-upgrade.test.ts). Retrying whole transactions was the
 * other choice; it would need every transaction's callback to be safe to run twice, which nothing checks.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private generation = 0;

  constructor(private readonly capacity = 500) {}

  async query(client: pg.PoolClient, text: string, values: unknown[], inTransaction: boolean): Promise<pg.QueryResult> {
    try {
      return await client.query(this.config(text, values, inTransaction));
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      this.generation += 1;
      this.names.set(text, this.nameOf(text));
      if (inTransaction) throw error;
      return client.query(this.config(text, values));
    }
  }

  config(text: string, values: unknown[], inTransaction = false): pg.QueryConfig {
    if (inTransaction && STAR_PROJECTION.test(text)) return { text, values };
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.capacity) {
      name = this.nameOf(text);
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }

  private nameOf(text: string): string {
    return `ts${this.generation}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
  }
}

/**
 * The pool Kysely uses on PostgreSQL: every query goes out as a prepared statement (above). `pool` is one
 * pool, or a chooser answering the pool for the work asking now (background-pool.ts); `end` ends them all.
 */
export function preparingPool(pool: pg.Pool | { choose(): pg.Pool; all: pg.Pool[] }, prepared = new PreparedStatements()): PostgresPool {
  const choose = 'choose' in pool ? () => pool.choose() : () => pool;
  const all = 'choose' in pool ? pool.all : [pool];
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    // A stale plan inside a transaction has already aborted it: only outside one is a retry safe.
    let inTransaction = false;
    return {
      query: async (text: string, parameters: readonly unknown[]) => {
        if (TRANSACTION_START.test(text)) inTransaction = true;
        else if (TRANSACTION_END.test(text)) inTransaction = false;
        return prepared.query(client, text, parameters as unknown[], inTransaction);
      },
      release: () => client.release(),
    } as unknown as PostgresPoolClient; // Kysely only calls query(sql, parameters): no cursors here
  };
  return { connect: async () => wrap(await choose().connect()), end: async () => void (await Promise.all(all.map((each) => each.end()))) };
}
