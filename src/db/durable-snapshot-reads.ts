import { AsyncLocalStorage } from 'node:async_hooks';
import SQLite from 'better-sqlite3';

/** What one request (or other unit of work run in `scope`) has done to the database so far. */
interface ReadScope {
  /** It wrote, or read through the writer connection, which may show commits not yet on disk. */
  touchedWriter: boolean;
}

/**
 * Reads that never wait for an fsync they do not depend on, and never show a write before it is on disk.
 *
 * With group commit (wal-group-commit.ts) the writer connection commits with `synchronous=NORMAL`: a
 * commit is visible to every connection before its fsync, so until now every response waited for the
 * sync of all commits made so far, including writes it had nothing to do with. Here, reads of a request
 * that has not written go to a second connection holding a read transaction (a WAL snapshot) taken at
 * the start of a sync and used only once that sync finished: everything it shows is on disk. Two
 * connections take turns: the one serving, and the one whose snapshot waits for the sync in flight.
 *
 * Why the snapshot is durable: it is taken synchronously, on the thread that runs every statement of
 * this process, right where the sync starts; every frame it can see is already in the WAL file, and the
 * sync (`fdatasync` of the WAL file) flushes all of them, those of other processes too. A checkpoint
 * syncs the WAL before copying it and the database after, so frames it moves stay durable.
 *
 * Which statements it serves: plain reads (`reader` and `readonly`; not BEGIN or COMMIT, which SQLite
 * also counts read-only) outside a transaction, in a scope that has not touched the writer. A scope's
 * first write, or any read the snapshot cannot serve, moves the rest of that scope to the writer
 * (read-your-writes), and that scope's acknowledgement then waits for `durable()` as before. Work
 * outside any scope (jobs, deliveries, the CLI) always uses the writer, as before.
 *
 * Other processes on the same file: their commits change the writer's `PRAGMA data_version`. While it
 * differs from the snapshot's, reads go to the writer (and wait for `durable()`) and a new snapshot is
 * asked for, so nothing another node committed stays hidden longer than one sync.
 */
export class DurableSnapshotReads {
  readonly #scopes = new AsyncLocalStorage<ReadScope>();
  readonly #connections: SQLite.Database[];
  readonly #statements: Array<Map<string, SQLite.Statement>>;
  readonly #begin: SQLite.Statement[];
  #serving: number | undefined;
  #servingVersion = -1;

  constructor(
    file: string,
    /** The writer connection's `PRAGMA data_version`: moves when another process commits. */
    private readonly writerVersion: () => number,
    /** Asks for a sync that takes a fresh snapshot (group commit's `refresh`). */
    private readonly requestSnapshot: () => void,
    private readonly capacity = 1000,
  ) {
    this.#connections = [0, 1].map(() => {
      const connection = new SQLite(file);
      connection.pragma('busy_timeout = 5000');
      return connection;
    });
    this.#statements = this.#connections.map(() => new Map());
    // Reading the schema page starts the read transaction, which fixes the snapshot (a bare BEGIN does not).
    this.#begin = this.#connections.map((connection) => connection.prepare('select count(*) from sqlite_schema').pluck());
  }

  /** Runs `work` as one scope: its plain reads see the latest durable snapshot until it touches the writer. */
  run<T>(work: () => T): T {
    return this.#scopes.run({ touchedWriter: false }, work);
  }

  /** Whether what the current scope showed may depend on commits not yet on disk (true outside any scope). */
  mayShowUndurable(): boolean {
    return this.#scopes.getStore()?.touchedWriter ?? true;
  }

  /**
   * The statement to run `text` on the durable snapshot, or undefined when it must run on the writer
   * (which then marks the scope). `inTransaction`: whether the writer has a transaction open.
   */
  statementFor(text: string, inTransaction: boolean): SQLite.Statement | undefined {
    if (inTransaction) return undefined; // the transaction's statements must see its own writes
    const scope = this.#scopes.getStore();
    if (!scope || scope.touchedWriter) return undefined;
    const statement = this.#servable(text);
    if (!statement) scope.touchedWriter = true;
    return statement;
  }

  #servable(text: string): SQLite.Statement | undefined {
    const serving = this.#serving;
    if (serving === undefined || this.writerVersion() !== this.#servingVersion) {
      this.requestSnapshot();
      return undefined;
    }
    const cache = this.#statements[serving]!;
    let statement = cache.get(text);
    if (!statement) {
      statement = this.#connections[serving]!.prepare(text);
      if (cache.size >= this.capacity) cache.delete(cache.keys().next().value!);
      cache.set(text, statement);
    }
    return statement.reader && statement.readonly ? statement : undefined;
  }

  /**
   * Called where a sync starts, after everything committed so far was written to the WAL: takes a
   * snapshot of exactly that on the connection not serving. Answers what to call once the sync
   * succeeded: it makes that snapshot the one served. A failed sync never calls it.
   */
  beginSnapshot(): () => void {
    const standby = this.#serving === 0 ? 1 : 0;
    const connection = this.#connections[standby]!;
    if (connection.inTransaction) connection.exec('commit'); // a snapshot whose sync failed
    const version = this.writerVersion();
    connection.exec('begin');
    this.#begin[standby]!.get();
    return () => {
      const previous = this.#serving;
      this.#serving = standby;
      this.#servingVersion = version;
      if (previous !== undefined && this.#connections[previous]!.inTransaction) this.#connections[previous]!.exec('commit');
    };
  }

  close(): void {
    for (const connection of this.#connections) {
      if (connection.inTransaction) connection.exec('commit');
      connection.close();
    }
    this.#serving = undefined;
  }
}
