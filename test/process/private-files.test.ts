/**
 * Issue 25 item 5: the data directory is 0700 and every file in it 0600 from the first byte — the SQLite
 * database and its WAL and shared-memory files, the site token, the backup while it is written, the copy
 * restore keeps. A real `teamstage serve` for the start; backup and restore through their functions.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/database.js';
import { joinAndMigrate } from '../../src/db/migrate.js';
import { ensureSiteToken } from '../../src/identity/site-token.js';
import { TokensRepository } from '../../src/identity/tokens.repository.js';
import { backupSqlite } from '../../src/ops/backup.js';
import { restoreSqlite } from '../../src/ops/restore.js';
import { startServerProcess } from '../helpers/server-process.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-private-files-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

describe('private files', () => {
  it('teamstage serve makes its data directory 0700 and the database, WAL, shared memory and site token 0600', { timeout: 60_000 }, async () => {
    // The usual umask: without explicit modes, these would be 0755 and 0644.
    process.umask(0o022);
    const dataDir = path.join(root, 'fresh', 'data');
    const databaseFile = path.join(dataDir, 'teamstage.sqlite');
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${databaseFile}` });
    try {
      const siteToken = fs.readFileSync(path.join(dataDir, 'site-token'), 'utf8').trim();
      // A write, so the WAL holds data while we look.
      const created = await fetch(`${server.url}/api/v2/admin/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${siteToken}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: 'users', attributes: { username: 'mode-check', email: 'mode@example.test' } } }),
      });
      assert.equal(created.status, 201);
      assert.equal(modeOf(path.join(root, 'fresh')), '700', 'every directory made on the way');
      assert.equal(modeOf(dataDir), '700');
      const files = fs.readdirSync(dataDir);
      for (const name of ['teamstage.sqlite', 'teamstage.sqlite-wal', 'teamstage.sqlite-shm', 'site-token']) assert.ok(files.includes(name), `${name} in ${files}`);
      for (const name of files) assert.equal(modeOf(path.join(dataDir, name)), '600', name);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('a database and WAL an older version left 0644 are made 0600 when opened', async () => {
    const dataDir = path.join(root, 'older');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    const databaseFile = path.join(dataDir, 'teamstage.sqlite');
    const old = new SQLite(databaseFile);
    old.pragma('journal_mode = WAL');
    old.exec('create table t (x)');
    for (const file of [databaseFile, `${databaseFile}-wal`, `${databaseFile}-shm`]) fs.chmodSync(file, 0o644);
    const handle = openDatabase(`sqlite:${databaseFile}`);
    try {
      await joinAndMigrate(handle);
      for (const file of [databaseFile, `${databaseFile}-wal`, `${databaseFile}-shm`]) assert.equal(modeOf(file), '600', file);
    } finally {
      await handle.close();
      old.close();
    }
  });

  it('a backup is 0600 while it is written and after; restore keeps the replaced database 0600 and writes a new one 0600', async () => {
    const dataDir = path.join(root, 'live');
    const databaseFile = path.join(dataDir, 'teamstage.sqlite');
    const handle = openDatabase(`sqlite:${databaseFile}`);
    await joinAndMigrate(handle);
    await ensureSiteToken(new TokensRepository(handle.db), { dataDir });
    await handle.close();

    const destination = path.join(root, 'backup.sqlite');
    const whileWritten: string[] = [];
    await backupSqlite({ databaseFile, dataDir, destination, whileCopying: (partial) => whileWritten.push(modeOf(partial)) });
    assert.ok(whileWritten.length > 0, 'the copy was looked at while written');
    assert.deepEqual([...new Set(whileWritten)], ['600']);
    assert.equal(modeOf(destination), '600');

    const restored = await restoreSqlite({ backupFile: destination, databaseFile, dataDir });
    assert.ok(restored.previous);
    assert.equal(modeOf(restored.previous), '600', 'the database it replaced');
    assert.equal(modeOf(databaseFile), '600');

    const elsewhere = path.join(root, 'new-home', 'data', 'teamstage.sqlite');
    await restoreSqlite({ backupFile: destination, databaseFile: elsewhere, dataDir: path.dirname(elsewhere) });
    assert.equal(modeOf(path.dirname(elsewhere)), '700');
    assert.equal(modeOf(elsewhere), '600');
  });
});
