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
  if (config.name !== undefined) {
    query.name = config.name;
    reuseRowShape(query as unknown as QueryInternals, config.name);
  }
  return new Promise((resolve, reject) => {
    query.callback = (error, result) => (error ? reject(error) : resolve(result));
    client.query(query);
  });
}

/** The parts of node-postgres 8's Query and Result that reuseRowShape touches (not in its typings). */
interface QueryInternals {
  _result: ResultInternals;
}
interface ResultInternals {
  fields: FieldDescription[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  addFields(fields: FieldDescription[]): void;
}
interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}

/** What Result.addFields derives from a statement's row description, by statement name. */
const rowShapes = new Map<string, { fields: FieldDescription[]; parsers: unknown[] | undefined; empty: Record<string, null> | null }>();

function sameFields(a: FieldDescription[], b: FieldDescription[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.name !== b[i]!.name || a[i]!.dataTypeID !== b[i]!.dataTypeID || a[i]!.format !== b[i]!.format) return false;
  }
  return true;
}

/**
 * node-postgres derives, for every query's row description, a parser per column and an empty row
 * object built in dictionary mode (Result.addFields: 4% of the server's CPU in the PostgreSQL fan-out
 * profile). A prepared statement describes the same row every time, so the derivation is kept per
 * statement name and reused while the description is unchanged (a migration changes it: then it is
 * derived and kept again).
 */
function reuseRowShape(query: QueryInternals, name: string): void {
  const result = query._result;
  result.addFields = function addFields(this: ResultInternals, fields: FieldDescription[]) {
    const kept = rowShapes.get(name);
    if (kept && sameFields(kept.fields, fields)) {
      this.fields = fields;
      this._parsers = kept.parsers;
      this._prebuiltEmptyResultObject = kept.empty;
      return;
    }
    Object.getPrototypeOf(this).addFields.call(this, fields);
    rowShapes.set(name, { fields, parsers: this._parsers, empty: this._prebuiltEmptyResultObject });
  };
}
