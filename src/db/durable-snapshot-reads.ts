import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import SQLite from 'better-sqlite3';

/** What one request (or other unit of work run in `scope`) has done to the database so far. */
interface ReadScope {
  /** It wrote, or read through the writer connection, which may show commits not yet on disk. */
  touchedWriter: boolean;
  /** Another process's commits were looked for (once a scope: `PRAGMA data_version` is a statement too). */
  checkedOtherProcesses: boolean;
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
 * (read-your-writes), and that scope's acknowledgement then waits for `durable()` as before. (The HTTP
 * layer also makes every request but GET and HEAD wait: a write may run in another request's scope.) Work
 * outside any scope (jobs, deliveries, the CLI) always uses the writer, as before.
 *
 * Other processes on the same file: their commits change the writer's `PRAGMA data_version`, looked at
 * once a scope, at its first snapshot read. While it differs from the snapshot's, reads go to the writer
 * (and wait for `durable()`) and a new snapshot is asked for, so nothing another node committed stays
 * hidden longer than one sync.
 *
 * The WAL must still be restarted now and then. SQLite only rewrites the WAL from its start when no
 * reader holds a snapshot that uses it, and here one always does: under a steady write load the WAL grew
 * without end (300 MB in 15 s). So once it is larger than `walRestartBytes`, one sync start lets go of
 * both snapshots, checkpoints every frame into the database (SQLite's own auto-checkpoint is off on the
 * writer: database.ts), and only then takes the next snapshot, which then needs no WAL frame; the writer's
 * next commit restarts the WAL, and `journal_size_limit` gives the file back. During that one sync,
 * reads go to the writer and wait for the disk, as they did before snapshot reads.
 */
export class DurableSnapshotReads {
  readonly #scopes = new AsyncLocalStorage<ReadScope>();
  readonly #connections: SQLite.Database[];
  readonly #statements: Array<Map<string, SQLite.Statement>>;
  readonly #begin: SQLite.Statement[];
  readonly #walFile: string;
  #lastRestartAt = 0;
  #serving: number | undefined;
  #servingVersion = -1;

  constructor(
    file: string,
    /** The writer connection's `PRAGMA data_version`: moves when another process commits. */
    private readonly writerVersion: () => number,
    /** Asks for a sync that takes a fresh snapshot (group commit's `refresh`). */
    private readonly requestSnapshot: () => void,
    /** The writer connection: whether it has a transaction open, and a checkpoint that never waits for a lock. */
    private readonly writer: { inTransaction(): boolean; checkpoint(): void },
    private readonly walRestartBytes = 8 * 1024 * 1024,
    private readonly capacity = 1000,
  ) {
    this.#walFile = `${file}-wal`;
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
    return this.#scopes.run({ touchedWriter: false, checkedOtherProcesses: false }, work);
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
    const statement = this.#servable(text, scope);
    if (!statement) scope.touchedWriter = true;
    return statement;
  }

  #servable(text: string, scope: ReadScope): SQLite.Statement | undefined {
    const serving = this.#serving;
    if (serving === undefined || (!scope.checkedOtherProcesses && this.writerVersion() !== this.#servingVersion)) {
      this.requestSnapshot();
      return undefined;
    }
    scope.checkedOtherProcesses = true;
    const cache = this.#statements[serving]!;
    let statement = cache.get(text);
    if (!statement) {
      try {
        statement = this.#connections[serving]!.prepare(text);
      } catch {
        return undefined; // e.g. a table newer than the snapshot: the writer answers, with its own error if any
      }
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
    if (this.#walSize() > this.walRestartBytes) this.#letTheWalRestart();
    const standby = this.#serving === 0 ? 1 : 0;
    const connection = this.#connections[standby]!;
    let version: number;
    try {
      if (connection.inTransaction) connection.exec('commit'); // a snapshot whose sync failed
      version = this.writerVersion();
      connection.exec('begin');
      this.#begin[standby]!.get();
    } catch (error) {
      // No snapshot covers what this sync makes durable, so the one served would soon be stale: none is
      // served until a sync takes one again (reads go to the writer and wait for the disk meanwhile).
      this.#serving = undefined;
      throw error;
    }
    return () => {
      const previous = this.#serving;
      this.#serving = standby;
      this.#servingVersion = version;
      if (previous !== undefined && this.#connections[previous]!.inTransaction) this.#connections[previous]!.exec('commit');
    };
  }

  /**
   * No snapshot is held while the writer checkpoints the whole WAL, so the next snapshot starts on a WAL
   * already copied into the database and holds none of it: the writer's next commit can restart it.
   */
  #letTheWalRestart(): void {
    // Not inside the writer's open transaction (its frames are not all written yet), and at most once every
    // 100 ms should something else (another process's long read) keep the checkpoint from finishing.
    if (this.writer.inTransaction() || Date.now() - this.#lastRestartAt < 100) return;
    this.#lastRestartAt = Date.now();
    this.#serving = undefined; // until this sync has finished, reads go to the writer and wait for it
    for (const connection of this.#connections) if (connection.inTransaction) connection.exec('commit');
    this.writer.checkpoint();
  }

  #walSize(): number {
    try {
      return fs.statSync(this.#walFile).size;
    } catch {
      return 0; // no WAL file yet
    }
  }

  close(): void {
    for (const connection of this.#connections) {
      if (connection.inTransaction) connection.exec('commit');
      connection.close();
    }
    this.#serving = undefined;
  }
}
