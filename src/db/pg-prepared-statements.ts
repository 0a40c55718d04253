import { createHash } from 'node:crypto';
import pg from 'pg';

/** PostgreSQL's answer when a prepared `select *` meets a table whose columns changed (another node migrated). */
function isStalePlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '0A000' && /cached plan must not change result type/.test(message ?? '');
}

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it on every execution (measured: about a
 * third of the fan-out's time on PostgreSQL). A named query is prepared once per connection by
 * node-postgres and then only bound and executed. Query texts repeat (values are parameters); `in (…)`
 * lists of varying length make more texts, so only the first `capacity` distinct texts get a name, which
 * bounds the prepared statements per connection.
 *
 * After another node's migration changes a table, a prepared `select *` of it fails once per connection;
 * the text then gets a new name (prepared afresh everywhere), and outside a transaction the query is
 * simply sent again.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private generation = 0;

  constructor(private readonly capacity = 500) {}

  async query(client: pg.PoolClient, text: string, values: unknown[], inTransaction: boolean): Promise<pg.QueryResult> {
    try {
      return await submit(client, this.config(text, values));
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      this.generation += 1;
      this.names.set(text, this.nameOf(text));
      if (inTransaction) throw error;
      return submit(client, this.config(text, values));
    }
  }

  config(text: string, values: unknown[]): pg.QueryConfig {
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
 * `client.query(config)`, minus node-postgres's defensive copy of `config`: it copies every query's config
 * with Object.getOwnPropertyDescriptors and defineProperties (3% of the server's CPU in the PostgreSQL
 * fan-out profile). A Query given its text alone copies nothing; the config here is this module's own
 * and never reused, so the copy protects nothing. A Query is a Submittable, which client.query runs as
 * it is, answering through its callback.
 */
function submit(client: pg.PoolClient, config: pg.QueryConfig): Promise<pg.QueryResult> {
  const query = new pg.Query(config.text) as pg.Query & { name?: string; values?: unknown[]; callback?: (error: Error | undefined, result: pg.QueryResult) => void };
  query.values = config.values;
  if (config.name !== undefined) query.name = config.name;
  return new Promise((resolve, reject) => {
    query.callback = (error, result) => (error ? reject(error) : resolve(result));
    client.query(query);
  });
}
