/**
 * A node on SQLite never loads node-postgres (issue 39, start to ready: loading it cost 25–35 ms of every start,
 * pg-module.ts). Checked in a process of its own, since this test process may have loaded pg for other reasons.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Opens `url` in a fresh process, runs a first query, and answers whether pg's modules were loaded. */
function pgLoadedAfterOpening(url: string): boolean {
  const script = `
    import { createRequire } from 'node:module';
    const { openDatabase } = await import('./src/db/database.ts');
    const handle = openDatabase(${JSON.stringify(url)});
    // A first query: on SQLite it reads; on PostgreSQL it awaits the driver's load (the pools are made then), then
    // fails to connect to a port nothing listens on, which is all this needs.
    await handle.db.selectFrom('sqlite_master').selectAll().execute().catch((error) => {
      if (handle.dialect === 'sqlite') throw error;
    });
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(String(Object.keys(cache).some((file) => file.includes('/node_modules/pg/'))));
    process.exit(0);
  `;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 }) === 'true';
}

describe('node-postgres is loaded only for PostgreSQL', { timeout: 120_000 }, () => {
  it('is not loaded by a node on SQLite', () => {
    assert.equal(pgLoadedAfterOpening('sqlite::memory:'), false);
  });

  it('is loaded when the database is PostgreSQL (no server needed: a first query loads it, then fails to connect)', () => {
    assert.equal(pgLoadedAfterOpening('postgres://nobody@127.0.0.1:1/none'), true);
  });
});
