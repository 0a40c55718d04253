import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect, except that every transaction begins IMMEDIATE.
 *
 * Inside one process Kysely's single connection already runs transactions one at a time. Several processes
 * may share one SQLite file, though, and a plain (deferred) BEGIN takes the write lock only at the first
 * write: a transaction that reads a row and then writes what it decided would either overwrite what another
 * process committed in between or fail with SQLITE_BUSY, which no busy timeout retries. BEGIN IMMEDIATE takes
 * the write lock first, waiting out the busy timeout, so every read inside a transaction sees the latest
 * commit and stays true until it commits: read-modify-writes are atomic across processes. Every transaction
 * here writes, so taking the lock up front costs nothing another process could have used.
 */
export class ImmediateTransactionsSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionsSqliteDriver(this.#config);
  }
}

class ImmediateTransactionsSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
