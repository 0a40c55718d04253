import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { WalGroupCommit } from '../../src/db/wal-group-commit.js';

/** A sync that only finishes when the test says so, counting how often it was started. */
function heldSync() {
  const pending: Array<() => void> = [];
  let started = 0;
  return {
    started: () => started,
    sync: (_fd: number) => {
      started += 1;
      return new Promise<void>((resolve) => pending.push(resolve));
    },
    releaseNext: () => pending.shift()!(),
  };
}

/** A WAL database whose statements all pass through the group commit's tracking, as Kysely's do. */
function walDatabase(sync?: (fd: number) => Promise<void>) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-wal-'));
  const file = path.join(directory, 'test.sqlite');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const groupCommit = new WalGroupCommit(sqlite, `${file}-wal`, sync);
  const run = (text: string, ...params: unknown[]) => {
    const statement = sqlite.prepare(text);
    groupCommit.trackStatement(statement);
    return statement.reader ? statement.all(...params) : statement.run(...params);
  };
  run('create table t (v integer)');
  return { sqlite, groupCommit, run };
}

const settled = (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };
};

describe('WAL group commit', () => {
  it('syncs only when something was committed since the last sync', async () => {
    let syncs = 0;
    const { groupCommit, run } = walDatabase(async () => {
      syncs += 1;
    });
    await groupCommit.durable();
    assert.equal(syncs, 1, 'the table creation is a commit');
    await groupCommit.durable();
    run('select count(*) from t');
    await groupCommit.durable();
    assert.equal(syncs, 1, 'reads and repeated calls need no sync');
    run('insert into t values (1)');
    await groupCommit.durable();
    assert.equal(syncs, 2);
  });

  it('does not count a write inside an open transaction until it is committed', async () => {
    const held = heldSync();
    const { groupCommit, run } = walDatabase(held.sync);
    const first = groupCommit.durable();
    held.releaseNext();
    await first;
    run('begin');
    run('insert into t values (1)');
    const inside = groupCommit.durable();
    assert.equal(held.started(), 1, "the open transaction's write is not a commit yet: nothing to sync");
    await inside;
    run('commit');
    const afterCommit = groupCommit.durable();
    const isDone = settled(afterCommit);
    assert.equal(await isDone(), false, 'a commit is not durable before a sync that started after it');
    assert.equal(held.started(), 2);
    held.releaseNext();
    await afterCommit;
  });

  it('covers every commit made while a sync runs with one more sync, never before it ends', async () => {
    const held = heldSync();
    const { groupCommit, run } = walDatabase(held.sync);
    run('insert into t values (1)');
    const first = groupCommit.durable();
    const firstDone = settled(first);
    run('insert into t values (2)');
    const second = groupCommit.durable();
    run('insert into t values (3)');
    const third = groupCommit.durable();
    const secondDone = settled(second);
    const thirdDone = settled(third);
    assert.equal(held.started(), 1, 'one sync at a time');
    held.releaseNext();
    assert.equal(await firstDone(), true);
    assert.equal(await secondDone(), false, 'the second commit came after the first sync started');
    assert.equal(await thirdDone(), false);
    assert.equal(held.started(), 2, 'the later commits share one sync');
    held.releaseNext();
    await Promise.all([second, third]);
    assert.equal(held.started(), 2);
  });

  it('fdatasyncs the real WAL file by default', async () => {
    const { groupCommit, run, sqlite } = walDatabase();
    run('insert into t values (1)');
    await groupCommit.durable();
    groupCommit.close();
    sqlite.close();
  });

  it('rejects when the sync fails, so nothing is acknowledged', async () => {
    const { groupCommit, run } = walDatabase(async () => {
      throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    });
    run('insert into t values (1)');
    await assert.rejects(groupCommit.durable(), /EIO/);
  });
});
