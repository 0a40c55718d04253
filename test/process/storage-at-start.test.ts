/**
 * Issue 14, item 13, at start: a database (or data directory) the server cannot write stops `teamstage
 * serve` with one clear line (what, which path, what to do) and a non-zero exit code, never a stack trace.
 * File permissions bind no root process, so as root the server runs as `nobody` (uid 65534).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { asRoot, assertOneClearLine, directory, escape, runAsUs, runCli as run } from '../helpers/cli-process.js';
import { freshDatabaseUrl } from '../helpers/test-app.js';

describe('a database the server cannot write stops it at start with one clear line', () => {
  const made: string[] = [];
  after(() => {
    for (const dir of made) {
      fs.chmodSync(dir, 0o755);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  const dir = (writable: boolean) => {
    const created = directory(writable);
    made.push(created);
    return created;
  };

  it('a read-only SQLite database file', async () => {
    const data = dir(true);
    const file = path.join(data, 'teamstage.sqlite');
    // A complete database, made by someone else: read-only for the server.
    const migrated = await runAsUs(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(migrated.code, 0, migrated.output);
    for (const name of fs.readdirSync(data)) fs.chmodSync(path.join(data, name), 0o444);
    if (asRoot) for (const name of fs.readdirSync(data)) fs.chownSync(path.join(data, name), 0, 0);
    const result = await run(['serve'], { DATABASE_URL: `sqlite:${file}` });
    assertOneClearLine(result, new RegExp(escape(file)), /read-only/, /writable/);
  });

  it('a SQLite database in a directory the server cannot write', async () => {
    const data = dir(false);
    const file = path.join(data, 'teamstage.sqlite');
    const result = await run(['serve'], { DATABASE_URL: `sqlite:${file}` });
    assertOneClearLine(result, new RegExp(escape(file)), /directory/, /writable/);
  });

  it('a data directory the server cannot write the generated site token to', async () => {
    const database = dir(true);
    const data = dir(false);
    const result = await run(['serve'], { DATABASE_URL: `sqlite:${path.join(database, 'teamstage.sqlite')}`, TEAMSTAGE_DATA_DIR: data });
    assertOneClearLine(result, new RegExp(escape(path.join(data, 'site-token'))), /TEAMSTAGE_SITE_TOKEN|writable/);
    // Nothing was kept that nobody was shown: the next start with a writable data directory generates a token.
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(path.join(database, 'teamstage.sqlite'), { readonly: true });
    try {
      assert.equal((db.prepare("select count(*) as n from tokens where kind = 'site'").get() as { n: number }).n, 0, 'no site token stored without its file');
    } finally {
      db.close();
    }
  });

  describe('PostgreSQL', { skip: !process.env.TEAMSTAGE_TEST_PG_URL && 'needs the throwaway PostgreSQL of npm test' }, () => {
    let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
    before(async () => {
      database = await freshDatabaseUrl('postgres');
    });
    after(() => database?.drop());

    it('a database that accepts no writes (a standby, default_transaction_read_only)', async () => {
      const name = new URL(database.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.TEAMSTAGE_TEST_PG_URL });
      await admin.connect();
      await admin.query(`alter database ${name} set default_transaction_read_only = on`);
      await admin.end();
      const result = await run(['serve'], { DATABASE_URL: database.url });
      const { password } = new URL(database.url);
      assertOneClearLine(result, /PostgreSQL/, /read-only/, new RegExp(escape(name)));
      assert.ok(!result.output.includes(decodeURIComponent(password)), 'the password is not shown');
    });
  });
});
