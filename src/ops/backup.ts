import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { ensurePrivateFile } from '../db/private-files.js';
import { siteTokenFile } from '../identity/site-token.js';
import { describeSummary, integrityCheck, siteTokenFileMatches, summarize, type SqliteSummary } from './sqlite-summary.js';

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
  summary: SqliteSummary;
  siteToken: 'matches' | 'differs' | 'no file';
}

/** The SQLite file a `sqlite:` DATABASE_URL names; backup and restore have nothing to do on PostgreSQL. */
export function sqliteFileOf(databaseUrl: string, command: 'backup' | 'restore'): string {
  const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new BackupError(`teamstage ${command} works on SQLite; DATABASE_URL is PostgreSQL: use ${tool} (docs/operations.md, "Backups")`);
  }
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:') throw new BackupError(`DATABASE_URL is sqlite::memory:, which has nothing to ${command}`);
  return path.resolve(file);
}

/**
 * An online, consistent copy of the SQLite database, taken while servers keep running and writing.
 *
 * SQLite's online backup API copies every page inside one read transaction when asked for all pages in
 * one step (the progress callback below): in WAL mode that read transaction blocks no writer, and the
 * copy is the database as of one commit, holding every commit acknowledged before the backup began.
 * (Copied a few pages at a time, the default, a backup restarts whenever another process commits, and
 * under a steady write load it might never finish.)
 *
 * The copy is written beside the destination (0600 from its first byte: it holds what the database holds,
 * run task HMAC keys among it) and renamed into place once it passes integrity_check, so
 * the destination is never a half-written file. The site token travels as what the database holds, its
 * SHA-256 digest: the backup restores which site token works, and is not itself an admin credential.
 */
export async function backupSqlite(options: {
  databaseFile: string;
  dataDir: string;
  destination: string;
  /** Tests: called while the copy is being written, with the file it is written to. */
  whileCopying?: (partialFile: string) => void;
}): Promise<BackupResult> {
  const destination = path.resolve(options.destination);
  if (destination === options.databaseFile) throw new BackupError('the backup file cannot be the database itself');
  if (!fs.existsSync(options.databaseFile)) throw new BackupError(`no database at ${options.databaseFile}`);
  if (!fs.existsSync(path.dirname(destination))) throw new BackupError(`the directory ${path.dirname(destination)} does not exist`);
  const partial = `${destination}.partial-${process.pid}`;
  // 0600 before the first page is copied into it (SQLite writes into the empty file as it finds it).
  ensurePrivateFile(partial);
  const source = new SQLite(options.databaseFile, { fileMustExist: true, timeout: 5000 });
  try {
    await source.backup(partial, {
      progress: () => {
        options.whileCopying?.(partial);
        return 0x7fffffff;
      },
    });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  const copy = new SQLite(partial, { fileMustExist: true });
  let summary: SqliteSummary;
  let siteToken: BackupResult['siteToken'];
  try {
    const integrity = integrityCheck(copy);
    if (integrity !== 'ok') throw new BackupError(`the copy failed integrity_check: ${integrity}`);
    // The copy stands alone (no -wal beside it): one file to store, move and restore.
    copy.pragma('journal_mode = DELETE');
    summary = summarize(copy);
    siteToken = siteTokenFileMatches(copy, siteTokenFile(options.dataDir));
  } catch (error) {
    copy.close();
    fs.rmSync(partial, { force: true });
    throw error;
  }
  copy.close();
  const fd = fs.openSync(partial, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(partial, destination);
  return { file: destination, bytes: fs.statSync(destination).size, summary, siteToken };
}

export function describeBackup(result: BackupResult, dataDir: string): string[] {
  const tokenFile = siteTokenFile(dataDir);
  const siteToken = {
    matches: `the site token in ${tokenFile} is the backup's site token (the backup holds only its digest: keep the token itself with your secrets)`,
    differs: `${tokenFile} holds no site token of this database (a configured TEAMSTAGE_SITE_TOKEN, or a rotated one): keep the site token in use with your secrets`,
    'no file': `no ${tokenFile} (TEAMSTAGE_SITE_TOKEN set?): the backup holds the site token's digest only; keep the token itself with your secrets`,
  }[result.siteToken];
  return [
    `wrote ${result.file} (${result.bytes} bytes, integrity_check ok)`,
    `  holds ${describeSummary(result.summary)}`,
    `  site token: ${siteToken}`,
  ];
}
