import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { MIGRATIONS } from '../db/migrate.js';
import { ensurePrivateDirectory, ensurePrivateFile } from '../db/private-files.js';
import { siteTokenFile } from '../identity/site-token.js';
import { BackupError } from './backup.js';
import { expectedShape, missingFrom, schemaShapeOf } from './expected-schema.js';
import { describeSummary, integrityCheck, siteTokenFileMatches, summarize, type SqliteSummary } from './sqlite-summary.js';

export class RestoreRefused extends Error {}

export interface RestoreResult {
  databaseFile: string;
  summary: SqliteSummary;
  /** Where the database that was replaced was kept, if there was one. */
  previous?: string;
  siteToken: 'matches' | 'moved aside' | 'no file';
  /** Where a token file that no longer works was moved. */
  movedTokenFile?: string;
}

/** `<file>.before-restore-<UTC time>`, with a counter should two restores fall in one second. */
function asideName(file: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, 'Z');
  for (let n = 1; ; n++) {
    const name = `${file}.before-restore-${stamp}${n > 1 ? `-${n}` : ''}`;
    if (!fs.existsSync(name)) return name;
  }
}

/** A backup the server's user cannot read is that file's problem, not the data directory's: say so. */
function assertReadable(file: string): void {
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    const uid = process.getuid?.();
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new RestoreRefused(`cannot read the backup ${file} (${code}): make it readable by the user running Teamstage${uid === undefined ? '' : ` (uid ${uid})`}. Nothing was changed`);
  }
}

/**
 * Opens and checks the backup: a SQLite file, integrity_check ok, a Teamstage schema this version knows,
 * and complete: every table and column its migrations make is there (a file holding only the migrations
 * table would otherwise replace the database and the next start would crash on a missing table).
 */
async function checkBackup(file: string): Promise<SQLite.Database> {
  if (!fs.existsSync(file)) throw new RestoreRefused(`no backup file at ${file}`);
  assertReadable(file);
  let backup: SQLite.Database | undefined;
  try {
    backup = new SQLite(file, { readonly: true, fileMustExist: true });
    const integrity = integrityCheck(backup);
    if (integrity !== 'ok') throw new RestoreRefused(`${file} fails integrity_check (${integrity}); nothing was changed`);
    const { migrations } = summarize(backup);
    if (migrations.length === 0) throw new RestoreRefused(`${file} is not a Teamstage database (no migrations); nothing was changed`);
    const unknown = migrations.filter((name) => !(name in MIGRATIONS));
    if (unknown.length > 0) {
      throw new RestoreRefused(`${file} comes from a newer Teamstage (unknown migrations ${unknown.join(', ')}); restore it with that version. Nothing was changed`);
    }
    const expected = await expectedShape(migrations);
    if (!expected) throw new RestoreRefused(`${file} has an incomplete migration history (${migrations.join(', ')}); nothing was changed`);
    const missing = missingFrom(schemaShapeOf(backup), expected);
    if (missing.length > 0) {
      const shown = missing.length > 5 ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more` : missing.join(', ');
      throw new RestoreRefused(`${file} is not a complete Teamstage database (missing ${shown}); nothing was changed`);
    }
    return backup;
  } catch (error) {
    backup?.close();
    if (error instanceof RestoreRefused) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new RestoreRefused(`${file} is not a usable SQLite database (${code}); nothing was changed`);
    throw error;
  }
}

/**
 * Proves no other process has the database open, and keeps the database being replaced.
 *
 * Every connection to a WAL database holds a shared lock on the file for as long as it is open, idle or
 * not (that is how SQLite refuses to leave WAL mode under another connection). An EXCLUSIVE locking-mode
 * connection needs the exclusive lock, which it gets only when no other connection exists: no running
 * server, no other CLI. The locks are POSIX advisory locks held by the kernel for the process, so a
 * server killed with SIGKILL holds none, where a PID file would still name it.
 *
 * While holding that lock: checkpoint the WAL into the file, keep a copy of the current database, and
 * leave WAL mode so the restore below writes one self-contained file.
 */
function lockAndKeepCurrent(databaseFile: string): string {
  let current: SQLite.Database;
  try {
    current = new SQLite(databaseFile, { fileMustExist: true, timeout: 0 });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB') throw new RestoreRefused(`${databaseFile} is not a SQLite database; move it away first. Nothing was changed`);
    throw error;
  }
  try {
    current.pragma('locking_mode = EXCLUSIVE');
    current.exec('begin exclusive');
    current.exec('commit'); // the exclusive lock stays: EXCLUSIVE locking mode keeps it until close
  } catch (error) {
    current.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new RestoreRefused(
        `${databaseFile} is in use by another process (a running Teamstage server?): stop every server using it, then run restore again. Nothing was changed`,
      );
    }
    throw error;
  }
  try {
    current.pragma('wal_checkpoint(TRUNCATE)');
    current.pragma('journal_mode = DELETE');
    const previous = asideName(databaseFile);
    ensurePrivateFile(previous); // holds secrets, as the database does: 0600 before VACUUM INTO fills it
    current.exec(`vacuum into '${previous.replaceAll("'", "''")}'`);
    return previous;
  } finally {
    current.close();
  }
}

/**
 * Replaces the database with a backup, only while no server uses it. The copy goes through SQLite's
 * backup API (all pages in one step, one write transaction on the destination): should anything stop it
 * halfway, SQLite's journal rolls the file back to what it was. The database it replaces is kept beside it.
 * The lock is let go just before the copy (the backup API opens its own connection, which that lock would
 * shut out): a server started in that instant would see the restored data once the copy commits, under
 * SQLite's locks, never a mix of the two.
 */
export async function restoreSqlite(options: { backupFile: string; databaseFile: string; dataDir: string }): Promise<RestoreResult> {
  const backupFile = path.resolve(options.backupFile);
  if (backupFile === options.databaseFile) throw new BackupError('the backup file is the database itself');
  const backup = await checkBackup(backupFile);
  let previous: string | undefined;
  try {
    if (fs.existsSync(options.databaseFile)) previous = lockAndKeepCurrent(options.databaseFile);
    else ensurePrivateDirectory(path.dirname(options.databaseFile));
    ensurePrivateFile(options.databaseFile);
    await backup.backup(options.databaseFile, { progress: () => 0x7fffffff });
  } finally {
    backup.close();
  }
  const restored = new SQLite(options.databaseFile, { fileMustExist: true });
  let summary: SqliteSummary;
  let tokenState: ReturnType<typeof siteTokenFileMatches>;
  try {
    const integrity = integrityCheck(restored);
    if (integrity !== 'ok') throw new Error(`the restored database fails integrity_check: ${integrity}`);
    summary = summarize(restored);
    tokenState = siteTokenFileMatches(restored, siteTokenFile(options.dataDir));
  } finally {
    restored.close();
  }
  if (tokenState !== 'differs') return { databaseFile: options.databaseFile, summary, previous, siteToken: tokenState };
  // The file's token is not one the restored database accepts: `token print` must not show it as working.
  const tokenFile = siteTokenFile(options.dataDir);
  const movedTokenFile = asideName(tokenFile);
  fs.renameSync(tokenFile, movedTokenFile);
  return { databaseFile: options.databaseFile, summary, previous, siteToken: 'moved aside', movedTokenFile };
}

export function describeRestore(result: RestoreResult, options: { dataDir: string; siteTokenConfigured: boolean }): string[] {
  const tokenFile = siteTokenFile(options.dataDir);
  const siteToken = options.siteTokenConfigured
    ? 'TEAMSTAGE_SITE_TOKEN is set: the next start makes it the site token'
    : {
        matches: `the token in ${tokenFile} is the restored database's site token and keeps working`,
        'moved aside': `the site token is the one in use when the backup was taken; ${tokenFile} held another, moved to ${result.movedTokenFile}. Use the token you kept, set TEAMSTAGE_SITE_TOKEN, or run "teamstage token rotate"`,
        'no file': `the site token is the one in use when the backup was taken (no ${tokenFile}); if you did not keep it, set TEAMSTAGE_SITE_TOKEN or run "teamstage token rotate"`,
      }[result.siteToken];
  return [
    `restored ${result.databaseFile} (integrity_check ok)`,
    `  holds ${describeSummary(result.summary)}`,
    result.previous ? `  the database it replaced is kept at ${result.previous}` : '  there was no database before',
    `  site token: ${siteToken}`,
  ];
}
