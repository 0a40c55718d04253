import path from 'node:path';
import type { Config } from '../config.js';
import { describeStorageProblem, storageFailureOf } from '../db/storage-failures.js';
import { NewerSchemaError } from '../db/migrate.js';
import { StartCheckFailed } from './start-checks.js';

/** What PostgreSQL or the network says when the database server cannot be used at all. */
const POSTGRES_UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  '28P01': 'the password was refused',
  '28000': 'the user may not connect',
  '3D000': 'the database does not exist',
};

/**
 * One line for the operator when the server cannot start because of where it keeps its data: what failed,
 * which path or database, and what to do. Undefined for anything else (a bug: its stack trace helps).
 */
export function explainStartupFailure(error: unknown, config: Pick<Config, 'databaseUrl'>): string | undefined {
  // Failures whose message already is the one line (what, where, what to do).
  if (error instanceof StartCheckFailed) return error.message;
  if (error instanceof NewerSchemaError) return `cannot start: ${error.message}.`;
  const uid = process.getuid?.();
  const user = uid === undefined ? 'the user running Teamstage' : `the user running Teamstage (uid ${uid})`;
  const code = (error as { code?: unknown } | null)?.code;
  const file = (error as { path?: unknown } | null)?.path;
  const failure = storageFailureOf(error);

  // A file the server writes itself: the SQLite directory, its migration lock, the site token.
  if (typeof file === 'string' && failure) {
    const reason = describeFileProblem(failure.problem);
    const siteToken = path.basename(file) === 'site-token' ? ', or set TEAMSTAGE_SITE_TOKEN so that no token file is written' : '';
    return `cannot write ${file}: ${reason} (${failure.code}). Make it, and the directory it is in, writable by ${user}${siteToken}.`;
  }

  if (config.databaseUrl.startsWith('sqlite:')) {
    if (!failure) return undefined;
    const database = path.resolve(config.databaseUrl.slice('sqlite:'.length));
    const what = `the SQLite database ${database}`;
    switch (failure.problem) {
      case 'read-only':
        return `cannot write ${what}: it is read-only (${failure.code}). Make the file, and the directory it is in, writable by ${user}, or set DATABASE_URL to a writable location.`;
      case 'cannot-open':
        return `cannot open ${what} (${failure.code}): its directory ${path.dirname(database)} must exist and be writable by ${user} (SQLite creates the -wal and -shm files beside the database), or set DATABASE_URL to a writable location.`;
      case 'full':
        return `cannot write ${what}: its disk is full (${failure.code}). Free space on that file system, or set DATABASE_URL to another one.`;
      default:
        return `cannot use ${what}: ${describeStorageProblem(failure.problem)} (${failure.code}). Check the disk and the system log.`;
    }
  }

  const what = `the PostgreSQL database ${withoutCredentials(config.databaseUrl)}`;
  const message = oneLine((error as { message?: unknown } | null)?.message);
  if (failure?.problem === 'read-only') {
    return `cannot write ${what}: it is read-only (${failure.code}: ${message}). Point DATABASE_URL at a primary server that accepts writes, not a standby, and check default_transaction_read_only.`;
  }
  if (failure?.problem === 'full') return `cannot write ${what}: its disk is full (${failure.code}: ${message}). Free space on the database server.`;
  if (failure) return `cannot use ${what}: ${describeStorageProblem(failure.problem)} (${failure.code}: ${message}). Check the database server and its log.`;
  if (typeof code === 'string' && POSTGRES_UNREACHABLE[code]) {
    return `cannot connect to ${what}: ${POSTGRES_UNREACHABLE[code]} (${code}). Check DATABASE_URL and that the server is running and accepts this client.`;
  }
  return undefined;
}

function describeFileProblem(problem: string): string {
  switch (problem) {
    case 'full':
      return 'the disk is full';
    case 'read-only':
      return 'permission denied or read-only file system';
    case 'io':
      return 'the disk reported an I/O error';
    default:
      return problem;
  }
}

/** host:port/database, never the user name or password. */
function withoutCredentials(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.host}${url.pathname}`;
  } catch {
    return '(DATABASE_URL)';
  }
}

function oneLine(text: unknown): string {
  return typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : 'no message';
}
