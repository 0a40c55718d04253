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
 *
 * And a rollback after SQLite already rolled back is skipped: on SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY or
 * SQLITE_NOMEM inside a transaction SQLite may roll the whole transaction back itself
 * (https://www.sqlite.org/lang_transaction.html, "Response To Errors Within A Transaction"), and Kysely's
 * ROLLBACK would then fail with "cannot rollback - no transaction is active", hiding the error that
 * matters (a full disk is a 503, that message a 500).
 */
export class ImmediateTransactionsSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #inTransaction: () => boolean;

  /** `inTransaction`: whether the connection is inside a transaction (better-sqlite3's `inTransaction`). */
  constructor(config: SqliteDialectConfig, inTransaction: () => boolean) {
    super(config);
    this.#config = config;
    this.#inTransaction = inTransaction;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionsSqliteDriver(this.#config, this.#inTransaction);
  }
}

class ImmediateTransactionsSqliteDriver extends SqliteDriver {
  readonly #inTransaction: () => boolean;

  constructor(config: SqliteDialectConfig, inTransaction: () => boolean) {
    super(config);
    this.#inTransaction = inTransaction;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#inTransaction()) return; // SQLite rolled it back already (see above)
    await super.rollbackTransaction(connection);
  }
}
