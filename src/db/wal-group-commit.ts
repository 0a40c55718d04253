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
  #syncScheduled = false;
  #fd: number | undefined;

  /**
   * Where a sync starts (durable-snapshot-reads.ts): takes a snapshot of what the sync covers and answers
   * what to call once it is on disk.
   */
  onSyncStart: (() => () => void) | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly walFile: string,
    private readonly sync: (fd: number) => Promise<void> = fdatasync,
  ) {}

  /** Called for every statement about to run on the connection (the previous one has finished). */
  trackStatement(statement: SQLite.Statement): void {
    this.#settle();
    if (!statement.readonly) this.#dirty = true;
    if (this.#dirty) this.#syncSoon();
  }

  /** Counts a commit the connection made since the last statement (called before any statement, on any connection). */
  settle(): void {
    this.#settle();
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

  /**
   * One more sync even when nothing of this connection's needs one (another process committed, or the
   * snapshot reads have none yet); joins the sync in flight if there is one, then runs its own.
   */
  async refresh(): Promise<void> {
    if (this.#running) await this.#running.catch(() => {});
    this.#running ??= this.#syncOnce().finally(() => (this.#running = undefined));
    await this.#running;
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

  /**
   * With snapshot reads, every commit is synced soon even if nobody waits for it (a job's): the snapshot
   * they read only moves on with a sync. Checked once the statement (the COMMIT, or a write outside a
   * transaction) has run: the driver runs each statement right after preparing it.
   */
  #syncSoon(): void {
    if (!this.onSyncStart || this.#syncScheduled) return;
    this.#syncScheduled = true;
    setImmediate(() => {
      this.#syncScheduled = false;
      this.#settle();
      // A failed sync rejects whoever awaits durable(); nobody does here.
      if (this.#committed > this.#synced) this.durable().catch(() => {});
    });
  }

  async #syncOnce(): Promise<void> {
    this.#settle();
    const covered = this.#committed; // everything counted so far is already written to the WAL file
    const descriptor = this.#walDescriptor();
    let snapshotDurable: (() => void) | undefined;
    try {
      snapshotDurable = this.onSyncStart?.();
    } catch {
      // No new snapshot this time: reads keep the one they have, or go to the writer and wait as before.
    }
    await this.sync(descriptor);
    // Before anyone awaiting durable() goes on: whatever they acknowledge next is then in the served snapshot.
    snapshotDurable?.();
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
