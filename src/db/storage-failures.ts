/**
 * Errors by which the storage, not the request, says no: a full disk, a read-only database or file
 * system, an I/O error, a database file that cannot be opened, a database server going away. Neither a
 * bug of ours nor a client's mistake, so neither a 500 nor a 4xx: 503 while it lasts.
 */
export type StorageProblem = 'full' | 'read-only' | 'io' | 'cannot-open' | 'unreachable';

export interface StorageFailure {
  problem: StorageProblem;
  /** The code as the driver or the OS gave it (SQLITE_FULL, 25006, ENOSPC …), for operators. */
  code: string;
}

/** PostgreSQL SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const POSTGRES: Record<string, StorageProblem> = {
  '53100': 'full', // disk_full
  '25006': 'read-only', // read_only_sql_transaction: a standby, or default_transaction_read_only
  '58030': 'io', // io_error
  '57P01': 'unreachable', // admin_shutdown
  '57P02': 'unreachable', // crash_shutdown
  '57P03': 'unreachable', // cannot_connect_now (starting up, in recovery)
};

/** What the OS says when a file the database writes cannot be written (group commit's fsync, a data file). */
const SYSTEM: Record<string, StorageProblem> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read-only',
  EACCES: 'read-only',
  EPERM: 'read-only',
  EIO: 'io',
};

export function storageFailureOf(error: unknown): StorageFailure | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  // better-sqlite3 gives extended result codes: SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE, …
  const sqlite = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|PERM)(_|$)/.exec(code)?.[1];
  if (sqlite) {
    const problem = ({ FULL: 'full', READONLY: 'read-only', PERM: 'read-only', IOERR: 'io', CANTOPEN: 'cannot-open' } as const)[sqlite as 'FULL'];
    return { problem, code };
  }
  // SQLSTATE class 08: connection exceptions.
  const problem = POSTGRES[code] ?? (/^08[0-9A-Z]{3}$/.test(code) ? 'unreachable' : undefined) ?? SYSTEM[code];
  return problem && { problem, code };
}

/** The problem in words, as the reason the database gives ("the database refused this: …"). */
export function describeStorageProblem(problem: StorageProblem): string {
  switch (problem) {
    case 'full':
      return 'its disk is full';
    case 'read-only':
      return 'it is read-only';
    case 'io':
      return 'its disk reported an I/O error';
    case 'cannot-open':
      return 'one of its files cannot be opened';
    case 'unreachable':
      return 'it is not reachable';
  }
}
