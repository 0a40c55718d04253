import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type SQLite from 'better-sqlite3';

const fdatasync = promisify(fs.fdatasync);

/**
 * Group commit for SQLite in WAL mode.
 *
 * With `synchronous=FULL`, SQLite fsyncs the WAL on every commit, on the event loop: one request's commit
 * stalls every other request for the length of an fsync, and N concurrent writes cost N fsyncs. Here the
 * connection runs with `synchronous=NORMAL` (a commit only writes its frames to the WAL file, which survives
 * a process crash), and `durable()` makes the commits on disk before anything is acknowledged: it
 * `fdatasync`s the WAL file on libuv's thread pool, and every commit made while one sync runs is covered by
 * the next one. Whoever must not acknowledge a lost write (an HTTP response, a request to a task service)
 * awaits `durable()` first, so an acknowledged write survives power loss exactly as with `FULL`.
 *
 * Why syncing the WAL file is enough: committed frames are appended to it; `fdatasync` on any descriptor
 * flushes the file's dirty pages (Linux syncs the inode, not the descriptor); and SQLite, even with
 * `NORMAL`, syncs the WAL before a checkpoint copies it into the database and the database after, so the
 * WAL is only rewritten from its start once its content is durable in the database file.
 *
 * Commits are counted at the statement level: `trackStatement` sees every statement Kysely runs; a
 * statement that can write marks the connection dirty, and once no transaction is open the dirty writes
 * are committed (or rolled back, which costs only a spare sync). `inTransaction` keeps a write inside an
 * open transaction from being counted before its COMMIT.
 */
export class WalGroupCommit {
  #committed = 0; // commits seen so far
  #synced = 0; // commits known to be on disk
  #dirty = false;
  #running: Promise<void> | undefined;
  #fd: number | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly walFile: string,
    private readonly sync: (fd: number) => Promise<void> = fdatasync,
  ) {}

  /** Called for every statement about to run on the connection (the previous one has finished). */
  trackStatement(statement: SQLite.Statement): void {
    this.#settle();
    if (!statement.readonly) this.#dirty = true;
  }

  /** Resolves once every commit made before the call is on disk. Costs nothing when there is none. */
  async durable(): Promise<void> {
    this.#settle();
    const target = this.#committed;
    while (this.#synced < target) {
      // One sync at a time; commits made while it runs wait for the next, which covers all of them.
      if (!this.#running) this.#running = this.#syncOnce().finally(() => (this.#running = undefined));
      await this.#running;
    }
  }

  close(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }

  #settle(): void {
    if (this.#dirty && !this.sqlite.inTransaction) {
      this.#committed += 1;
      this.#dirty = false;
    }
  }

  async #syncOnce(): Promise<void> {
    this.#settle();
    const covered = this.#committed; // everything counted so far is already written to the WAL file
    await this.sync(this.#walDescriptor());
    this.#synced = Math.max(this.#synced, covered);
  }

  #walDescriptor(): number {
    if (this.#fd === undefined) {
      // The WAL file exists once anything was written, and keeps its inode while this connection is open.
      this.#fd = fs.openSync(this.walFile, 'r');
      // Its directory entry must be durable too; SQLite would sync the directory when creating it.
      const directory = fs.openSync(path.dirname(this.walFile), 'r');
      try {
        fs.fsyncSync(directory);
      } finally {
        fs.closeSync(directory);
      }
    }
    return this.#fd;
  }
}
