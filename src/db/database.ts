import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type Logger } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import { ImmediateTransactionsSqliteDialect } from './sqlite-immediate-transactions.js';
import { preparingPool } from './pg-prepared-statements.js';
import { ensurePrivateDirectory, ensurePrivateFile, sqliteCompanionFiles, tightenIfOurs } from './private-files.js';
import { WalGroupCommit } from './wal-group-commit.js';
import { DurableSnapshotReads } from './durable-snapshot-reads.js';
import { BackgroundPool } from './background-pool.js';
import { loadPg } from './pg-module.js';

export type Dialect = 'sqlite' | 'postgres';
export type SqliteSynchronous = 'GROUP' | 'FULL' | 'NORMAL';

/** PostgreSQL connections the job worker has apart from the 10 that serve requests (background-pool.ts). */
export const POSTGRES_BACKGROUND_CONNECTIONS = 5;

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** For SQLite: the database file (or `:memory:`). */
  sqliteFile?: string;
  /**
   * For SQLite with group commit: resolves once every commit made so far is on disk. Anything that
   * acknowledges a write to the outside (an HTTP response, a request to a task service) awaits it first.
   */
  durable?: () => Promise<void>;
  /**
   * SQLite with group commit: runs a unit of work (an HTTP request) whose plain reads see the latest
   * durable snapshot and so never wait for a sync (durable-snapshot-reads.ts); `mayShowUndurable` says
   * whether it touched the writer since, and must await `durable()` before acknowledging.
   */
  snapshotReads?: { run<T>(work: () => T): T; mayShowUndurable(): boolean };
  /**
   * PostgreSQL: runs the node's background work (the job worker) on connections of its own, so that it
   * never queues behind API requests for one (background-pool.ts).
   */
  inBackground?<T>(work: () => T): T;
  /**
   * SQLite: the server's own connection, for what only SQLite's API does: user functions and temporary
   * triggers (run-change-signals.ts). Queries go through `db`.
   */
  sqlite?: SQLite.Database;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Called for each query slower than `slowQueryMs` (SQL text only, never parameters: they may hold secrets). */
  onSlowQuery?: (sql: string, durationMs: number) => void;
  slowQueryMs?: number;
  /**
   * SQLite durability. FULL (default): SQLite fsyncs every commit. GROUP: commits are fsynced together,
   * off the event loop, before `durable()` resolves (wal-group-commit.ts); survives power loss like FULL
   * for whoever awaits `durable()`. NORMAL: no fsync; survives process crashes, not power loss.
   */
  sqliteSynchronous?: SqliteSynchronous;
  /** Tests only: what group commit calls instead of `fdatasync` (a held or failing disk). */
  sqliteSync?: (fd: number) => Promise<void>;
}

export function openDatabase(databaseUrl: string, options: DatabaseOptions = {}): DatabaseHandle {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    // Private from the first byte (private-files.ts): the directory 0700 when made here, the file 0600 before
    // SQLite opens it, so that its WAL and shared-memory files are created 0600 as well.
    if (file !== ':memory:') {
      ensurePrivateDirectory(path.dirname(path.resolve(file)));
      ensurePrivateFile(file);
    }
    const sqlite = new SQLite(file);
    // WAL: readers never block the writer. FULL (the default here, for the CLI) fsyncs every commit; the
    // server passes its setting, GROUP by default. NORMAL survives process crashes and SIGKILL, not an OS crash.
    sqlite.pragma('journal_mode = WAL');
    // WAL and shared-memory files an older version left 0644 (new ones take the database file's 0600).
    if (file !== ':memory:') for (const companion of sqliteCompanionFiles(file)) tightenIfOurs(companion);
    const synchronous = options.sqliteSynchronous ?? 'FULL';
    sqlite.pragma(`synchronous = ${synchronous === 'GROUP' ? 'NORMAL' : synchronous}`);
    const groupCommit = synchronous === 'GROUP' && file !== ':memory:' ? new WalGroupCommit(sqlite, `${path.resolve(file)}-wal`, options.sqliteSync) : undefined;
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const dataVersion = sqlite.prepare('pragma data_version').pluck();
    let snapshotWanted = false;
    if (groupCommit) {
      // The durable snapshot reads (durable-snapshot-reads.ts) checkpoint the WAL themselves, once per 8 MiB,
      // when no snapshot holds it. SQLite's own auto-checkpoint would instead try at every commit past 4 MiB
      // while a snapshot holds the WAL, each time copying a few frames and fsyncing on the event loop
      // (a write-heavy loop ran 10% faster without it). After a restart the file is cut back to 4 MiB.
      sqlite.pragma('wal_autocheckpoint = 0');
      sqlite.pragma('journal_size_limit = 4194304');
    }
    const snapshots = groupCommit && new DurableSnapshotReads(
      path.resolve(file),
      () => dataVersion.get() as number,
      () => {
        if (snapshotWanted) return;
        snapshotWanted = true;
        groupCommit.refresh().catch(() => {}).finally(() => (snapshotWanted = false));
      },
      { inTransaction: () => sqlite.inTransaction, checkpoint: () => sqlite.pragma('wal_checkpoint(PASSIVE)') },
    );
    if (groupCommit && snapshots) groupCommit.onSyncStart = () => snapshots.beginSnapshot();
    const db = new Kysely<Database>({ dialect: new ImmediateTransactionsSqliteDialect({ database: withStatementCache(sqlite, groupCommit, snapshots) }, () => sqlite.inTransaction), log: slowQueryLog(options) });
    return {
      db,
      dialect: 'sqlite',
      sqliteFile: file === ':memory:' ? file : path.resolve(file),
      sqlite,
      ...(groupCommit && { durable: () => groupCommit.durable() }),
      ...(snapshots && { snapshotReads: { run: (work) => snapshots.run(work), mayShowUndurable: () => snapshots.mayShowUndurable() } }),
      close: async () => {
        await groupCommit?.durable();
        await db.destroy();
        snapshots?.close();
        groupCommit?.close();
      },
    };
  }
  // A bounded connect time: /readyz and requests fail fast instead of hanging when the server is unreachable.
  const newPool = (driver: typeof pg, max: number) => {
    const pool = new driver.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Nor a checked-out one (pg-pool listens only while a client is idle): a connection terminated by the
    // server (failover, pg_terminate_backend) fails its queries, and the pool drops the client on release.
    pool.on('connect', (client) => client.on('error', () => {}));
    return pool;
  };
  // Requests and the job worker each have their own connections (background-pool.ts). The pools are made on the
  // first query (Kysely calls the function then), once pg is loaded (pg-module.ts); the load starts now.
  const pools = new BackgroundPool();
  const driver = loadPg();
  const pool = async () => {
    const loaded = await driver;
    return preparingPool(pools.chooser(newPool(loaded, 10), newPool(loaded, POSTGRES_BACKGROUND_CONNECTIONS)));
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: slowQueryLog(options) });
  return {
    db,
    dialect: 'postgres',
    inBackground: (work) => pools.run(work),
    close: () => db.destroy(),
  };
}

function slowQueryLog(options: DatabaseOptions): Logger | undefined {
  const { onSlowQuery, slowQueryMs } = options;
  if (!onSlowQuery || slowQueryMs === undefined) return undefined;
  return (event) => {
    if (event.queryDurationMillis >= slowQueryMs) onSlowQuery(event.query.sql, event.queryDurationMillis);
  };
}

/**
 * Kysely prepares every query anew; preparing is a large share of a small query's cost. The SQL text of
 * Kysely's queries repeats (values are parameters), so a bounded cache of prepared statements keyed by
 * SQL serves almost every request. Safe because Kysely's SQLite driver runs one query at a time, each right
 * after preparing it, which is also why group commit can count commits here, and why a read can be
 * handed a statement of the snapshot connection instead (durable-snapshot-reads.ts).
 */
function withStatementCache(sqlite: SQLite.Database, groupCommit: WalGroupCommit | undefined, snapshots: DurableSnapshotReads | undefined, capacity = 1000) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      // A plain read of a request that has not written: from the durable snapshot, waiting for no sync.
      // The commit the writer may have just made is counted first, so that a sync will move the snapshot on.
      groupCommit?.settle();
      const snapshotStatement = snapshots?.statementFor(text, sqlite.inTransaction);
      if (snapshotStatement) return snapshotStatement;
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text); // re-insert: the Map's order is the recency order
      } else {
        statement = sqlite.prepare(text);
        if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
      }
      cache.set(text, statement);
      groupCommit?.trackStatement(statement);
      return statement;
    },
  };
}

/** True when the error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
