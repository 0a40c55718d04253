import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { DurableSnapshotReads } from '../../src/db/durable-snapshot-reads.js';

/** A disk whose syncs finish (or fail) only when the test says so. */
function heldDisk() {
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let held = true;
  return {
    sync: (_fd: number) => (held ? new Promise<void>((resolve, reject) => pending.push({ resolve, reject })) : Promise.resolve()),
    /** From now on every sync finishes at once (closing the database syncs once more). */
    free: () => {
      held = false;
      pending.splice(0).forEach((sync) => sync.resolve());
    },
    waiting: () => pending.length,
    finishAll: () => pending.splice(0).forEach((sync) => sync.resolve()),
    failAll: () => pending.splice(0).forEach((sync) => sync.reject(new Error('EIO: the disk went away'))),
  };
}

const directories: string[] = [];
after(() => directories.forEach((directory) => fs.rmSync(directory, { recursive: true, force: true })));

async function database(disk = heldDisk()) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-snapshot-'));
  directories.push(directory);
  const file = path.join(directory, 'db.sqlite');
  const handle = openDatabase(`sqlite:${file}`, { sqliteSynchronous: 'GROUP', sqliteSync: disk.sync });
  await sql`create table t (id integer primary key, v text not null)`.execute(handle.db);
  await sql`insert into t (id, v) values (1, 'durable')`.execute(handle.db);
  await syncNow(handle, disk);
  return { handle, disk, file };
}

/** Everything committed so far, synced by the held disk. */
async function syncNow(handle: DatabaseHandle, disk: ReturnType<typeof heldDisk>): Promise<void> {
  const synced = handle.durable!();
  disk.finishAll();
  await synced;
}

/** Lets every sync finish, then closes (closing syncs once more). */
async function closeDatabase(handle: DatabaseHandle, disk: ReturnType<typeof heldDisk>): Promise<void> {
  disk.free();
  await handle.close();
}

/** The one row's value, read through whichever connection the current scope is given. */
const readValue = async (handle: DatabaseHandle) => (await sql<{ v: string }>`select v from t where id = 1`.execute(handle.db)).rows[0]?.v;

/** A read as a request would make it: in its own scope. */
const readInScope = (handle: DatabaseHandle) =>
  handle.snapshotReads!.run(async () => ({ value: await readValue(handle), mayShowUndurable: handle.snapshotReads!.mayShowUndurable() }));

const update = (handle: DatabaseHandle, value: string) => sql`update t set v = ${value} where id = 1`.execute(handle.db);

describe('durable snapshot reads (SQLite group commit)', () => {
  it('a read waits for no sync, and shows no write before its sync finished', async () => {
    const { handle, disk } = await database();
    await update(handle, 'in flight');
    const acknowledged = handle.durable!(); // the writer's response, waiting for the disk
    assert.equal(disk.waiting(), 1, 'the sync is held');
    const read = await readInScope(handle); // resolves although the sync is still held
    assert.deepEqual(read, { value: 'durable', mayShowUndurable: false });
    disk.finishAll();
    await acknowledged;
    assert.deepEqual(await readInScope(handle), { value: 'in flight', mayShowUndurable: false }, 'once acknowledged, every read shows it');
    await closeDatabase(handle, disk);
  });

  it('pulls the rug between write and fsync: a write whose sync failed was never shown to a reader', async () => {
    const { handle, disk } = await database();
    await update(handle, 'lost');
    const acknowledged = handle.durable!();
    assert.equal((await readInScope(handle)).value, 'durable');
    disk.failAll();
    await assert.rejects(acknowledged, /EIO/, 'the write is never acknowledged');
    assert.equal((await readInScope(handle)).value, 'durable', 'and readers still do not see it');
    await closeDatabase(handle, disk);
  });

  it('a scope that wrote reads its own write, from the writer, and must wait for the disk', async () => {
    const { handle, disk } = await database();
    const seen = handle.snapshotReads!.run(async () => {
      await update(handle, 'mine');
      return { value: await readValue(handle), mayShowUndurable: handle.snapshotReads!.mayShowUndurable() };
    });
    assert.deepEqual(await seen, { value: 'mine', mayShowUndurable: true });
    await syncNow(handle, disk);
    await closeDatabase(handle, disk);
  });

  it('work outside any scope (jobs, the CLI) reads from the writer, as before', async () => {
    const { handle, disk } = await database();
    await update(handle, 'job');
    assert.equal(await readValue(handle), 'job');
    assert.equal(handle.snapshotReads!.mayShowUndurable(), true);
    await syncNow(handle, disk);
    await closeDatabase(handle, disk);
  });

  it('a commit nobody awaits (a background job\'s) is synced unasked, and readers see it after that sync', async () => {
    const { handle, disk } = await database();
    await update(handle, 'from a job');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(disk.waiting(), 1, 'a sync started without anyone calling durable()');
    assert.equal((await readInScope(handle)).value, 'durable');
    disk.finishAll();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(await readInScope(handle), { value: 'from a job', mayShowUndurable: false });
    await closeDatabase(handle, disk);
  });

  it("another process's commit is not hidden: reads go to the writer until a new snapshot has been synced", async () => {
    const disk = heldDisk();
    const { handle, file } = await database(disk);
    const other = new SQLite(file);
    other.prepare("update t set v = 'other node' where id = 1").run();
    other.close();
    const read = await readInScope(handle);
    assert.deepEqual(read, { value: 'other node', mayShowUndurable: true }, 'served by the writer, so its response waits for durable()');
    assert.equal(disk.waiting(), 1, 'a new snapshot was asked for');
    disk.finishAll();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(await readInScope(handle), { value: 'other node', mayShowUndurable: false }, 'then the snapshot serves it');
    await closeDatabase(handle, disk);
  });

  it('lets the WAL restart under a steady write load, so it stays bounded', async () => {
    const disk = heldDisk();
    const { handle, file } = await database(disk);
    disk.free();
    await sql`create table big (id integer primary key, v blob not null)`.execute(handle.db);
    const value = Buffer.alloc(16 * 1024, 7); // four pages a write: without restarts the WAL passes 150 MB
    let largestWal = 0;
    const writer = async (offset: number) => {
      for (let n = 0; n < 1000; n++) {
        await handle.snapshotReads!.run(async () => {
          await sql`select v from t where id = 1`.execute(handle.db); // a reader always holds a snapshot
          await sql`insert or replace into big (id, v) values (${(offset * 1000 + n) % 500}, ${value})`.execute(handle.db);
          await handle.durable!();
        });
        if (n % 50 === 0) largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
      }
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => writer(i)));
    // The restart step is the only checkpointer: SQLite's own would retry at every commit past 4 MiB.
    assert.equal((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db)).rows[0]!.wal_autocheckpoint, 0);
    assert.ok(largestWal < 48 * 1024 * 1024, `the WAL stayed below 48 MB (largest ${(largestWal / 2 ** 20).toFixed(1)} MB)`);
    await handle.close();
  });

  it('serves no snapshot after one could not be taken, rather than a stale one', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-snapshot-'));
    directories.push(directory);
    const file = path.join(directory, 'db.sqlite');
    const setup = new SQLite(file);
    setup.pragma('journal_mode = WAL');
    setup.exec("create table t (id integer primary key, v text not null); insert into t values (1, 'x')");
    setup.close();
    let failNext = false;
    const writerVersion = () => {
      if (!failNext) return 1;
      failNext = false;
      throw new Error('SQLITE_BUSY: database is locked');
    };
    const reads = new DurableSnapshotReads(file, writerVersion, () => {}, { inTransaction: () => false, checkpoint: () => {} });
    const served = () => reads.run(() => reads.statementFor('select v from t where id = 1', false) !== undefined);
    reads.beginSnapshot()(); // a sync started and finished: its snapshot is served
    assert.equal(served(), true);
    failNext = true;
    assert.throws(() => reads.beginSnapshot(), /SQLITE_BUSY/, 'the next sync could not take its snapshot');
    assert.equal(served(), false, 'reads go to the writer instead of the snapshot that sync leaves behind');
    reads.beginSnapshot()();
    assert.equal(served(), true, 'until a sync takes a snapshot again');
    reads.close();
  });
});
