/**
 * Issue 19: what `restore` refuses (nothing changed each time) and what becomes of the site token file.
 * The backup and restore functions on real SQLite files, in this process; the CLI under load is
 * test/system/backup-restore.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { joinAndMigrate, MIGRATIONS } from '../../src/db/migrate.js';
import { ensureSiteToken, rotateSiteToken, siteTokenFile } from '../../src/identity/site-token.js';
import { TokensRepository } from '../../src/identity/tokens.repository.js';
import { BackupError, backupSqlite, sqliteFileOf } from '../../src/ops/backup.js';
import { RestoreRefused, restoreSqlite } from '../../src/ops/restore.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-restore-checks-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A migrated Teamstage database with a generated site token, in its own data directory. */
async function teamstageDatabase(name: string): Promise<{ dataDir: string; databaseFile: string }> {
  const dataDir = path.join(dir, name);
  const databaseFile = path.join(dataDir, 'teamstage.sqlite');
  const handle = openDatabase(`sqlite:${databaseFile}`);
  await joinAndMigrate(handle);
  await ensureSiteToken(new TokensRepository(handle.db), { dataDir });
  await handle.close();
  return { dataDir, databaseFile };
}

function digest(file: string): string {
  return fs.readFileSync(file).toString('base64');
}

describe('restore checks', () => {
  it('refuses a file that is not a SQLite database, a corrupt one, and one from a newer Teamstage, changing nothing', async () => {
    const target = await teamstageDatabase('target');
    const source = await teamstageDatabase('source');
    const before = digest(target.databaseFile);
    const refusals: [string, RegExp][] = [];

    const text = path.join(dir, 'notes.txt');
    fs.writeFileSync(text, 'not a database at all, but long enough to have a header '.repeat(20));
    refusals.push([text, /is not a usable SQLite database \(SQLITE_NOTADB\); nothing was changed/]);

    const backup = path.join(dir, 'good.sqlite');
    await backupSqlite({ databaseFile: source.databaseFile, dataDir: source.dataDir, destination: backup });
    const newer = path.join(dir, 'newer.sqlite');
    fs.copyFileSync(backup, newer);
    const db = new SQLite(newer);
    db.prepare("insert into kysely_migration (name, timestamp) values ('999-from-the-future', '2030-01-01')").run();
    db.close();
    refusals.push([newer, /comes from a newer Teamstage \(unknown migrations 999-from-the-future\)/]);

    // Garbage over the pages after the first two: the file opens, but its b-trees do not hold together.
    const corrupt = path.join(dir, 'corrupt.sqlite');
    const bytes = fs.readFileSync(backup);
    bytes.fill(0x5a, 8192, bytes.length - 4096);
    fs.writeFileSync(corrupt, bytes);
    refusals.push([corrupt, /fails integrity_check|is not a usable SQLite database \(SQLITE_CORRUPT/]);

    refusals.push([path.join(dir, 'missing.sqlite'), /no backup file at/]);

    for (const [file, message] of refusals) {
      await assert.rejects(restoreSqlite({ backupFile: file, databaseFile: target.databaseFile, dataDir: target.dataDir }), (error: Error) => {
        assert.ok(error instanceof RestoreRefused, `${file}: ${error.message}`);
        assert.match(error.message, message);
        return true;
      });
      assert.equal(digest(target.databaseFile), before, `${file} changed nothing`);
    }
    assert.deepEqual(fs.readdirSync(target.dataDir).filter((name) => name.includes('before-restore')), []);
  });

  it('refuses a database that is not complete (only the migrations table, a table or a column gone, a gap in its history), changing nothing', async () => {
    const target = await teamstageDatabase('complete-target');
    const source = await teamstageDatabase('complete-source');
    const before = digest(target.databaseFile);
    const good = path.join(dir, 'complete.sqlite');
    await backupSqlite({ databaseFile: source.databaseFile, dataDir: source.dataDir, destination: good });
    const variant = (name: string, change: (db: SQLite.Database) => void) => {
      const file = path.join(dir, name);
      fs.copyFileSync(good, file);
      const db = new SQLite(file);
      change(db);
      db.close();
      return file;
    };
    const refusals: [string, RegExp][] = [
      // What issue 25 found accepted: the migrations table and nothing else; the next start crashed.
      [variant('only-migrations.sqlite', (db) => {
        const tables = db.prepare("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'").pluck().all() as string[];
        db.pragma('foreign_keys = OFF');
        // Dropping a full-text table drops its shadow tables with it.
        for (const table of tables) db.exec(`drop table if exists "${table}"`);
      }), /is not a complete Teamstage database \(missing table \w+, .* and \d+ more\); nothing was changed/],
      [variant('no-outcomes.sqlite', (db) => db.exec('drop table task_result_outcomes')), /missing table task_result_outcomes\)/],
      [variant('no-last-used.sqlite', (db) => db.exec('alter table tokens drop column last_used_at')), /missing column tokens\.last_used_at\)/],
      [variant('gap.sqlite', (db) => db.prepare("delete from kysely_migration where name = '005-team-list-indexes'").run()), /incomplete migration history/],
    ];
    for (const [file, message] of refusals) {
      await assert.rejects(restoreSqlite({ backupFile: file, databaseFile: target.databaseFile, dataDir: target.dataDir }), (error: Error) => {
        assert.ok(error instanceof RestoreRefused, `${file}: ${error.message}`);
        assert.match(error.message, message);
        return true;
      });
      assert.equal(digest(target.databaseFile), before, `${file} changed nothing`);
    }

    // A complete database of an older schema is a backup like any other: the next start migrates it.
    const older = path.join(dir, 'older.sqlite');
    const names = Object.keys(MIGRATIONS).sort().slice(0, 8);
    const olderDb = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(older) }) });
    const migrated = await new Migrator({ db: olderDb, provider: { getMigrations: async () => Object.fromEntries(names.map((name) => [name, MIGRATIONS[name]!])) } }).migrateToLatest();
    assert.equal(migrated.error, undefined);
    await olderDb.destroy();
    const restored = await restoreSqlite({ backupFile: older, databaseFile: target.databaseFile, dataDir: target.dataDir });
    assert.equal(restored.summary.migrations.at(-1), names.at(-1));
  });

  it('keeps a site token file that the restored database accepts, and moves aside one it does not', async () => {
    const live = await teamstageDatabase('live');
    const backup = path.join(dir, 'live-backup.sqlite');
    await backupSqlite({ databaseFile: live.databaseFile, dataDir: live.dataDir, destination: backup });
    const tokenAtBackup = fs.readFileSync(siteTokenFile(live.dataDir), 'utf8');
    assert.equal(fs.statSync(backup).mode & 0o777, 0o600, 'the backup is readable by its owner only');

    const kept = await restoreSqlite({ backupFile: backup, databaseFile: live.databaseFile, dataDir: live.dataDir });
    assert.equal(kept.siteToken, 'matches');
    assert.ok(kept.previous && fs.existsSync(kept.previous), 'the replaced database is kept');
    assert.equal(fs.statSync(kept.previous).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(siteTokenFile(live.dataDir), 'utf8'), tokenAtBackup);

    // Rotated after the backup: the file's token is not one the restored database accepts.
    const handle = openDatabase(`sqlite:${live.databaseFile}`);
    await rotateSiteToken(new TokensRepository(handle.db), live.dataDir);
    await handle.close();
    const moved = await restoreSqlite({ backupFile: backup, databaseFile: live.databaseFile, dataDir: live.dataDir });
    assert.equal(moved.siteToken, 'moved aside');
    assert.equal(fs.existsSync(siteTokenFile(live.dataDir)), false);
    assert.ok(moved.movedTokenFile && fs.readFileSync(moved.movedTokenFile, 'utf8') !== tokenAtBackup);
  });

  it('sends PostgreSQL to pg_dump and pg_restore', () => {
    assert.throws(() => sqliteFileOf('postgres://u:p@db:5432/teamstage', 'backup'), (error: Error) => error instanceof BackupError && /use pg_dump/.test(error.message));
    assert.throws(() => sqliteFileOf('postgres://u:p@db:5432/teamstage', 'restore'), /use pg_restore/);
  });
});
