import fs from 'node:fs';

/**
 * Everything Teamstage keeps on disk holds secrets (token digests, run task HMAC keys, plan JSON, logs), so
 * it is private from the first byte: directories 0700 when we create them, files 0600 before anything is
 * written to them. Creating a file empty with its mode first matters for the files SQLite writes: it opens
 * an existing file as it is, and gives the `-wal`, `-shm` and `-journal` files it creates the mode of the
 * database file (SQLite's unix VFS), so they are 0600 too. An existing directory keeps its mode (it may be
 * shared, `/var/lib`), but the files we own in it are made 0600.
 */

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the directory (and missing parents) 0700; an existing one is left as it is. */
export function ensurePrivateDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/** Makes sure `file` exists and is 0600: created empty with that mode, or tightened when it exists. */
export function ensurePrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  tightenIfOurs(file);
}

/** Makes an existing file 0600 (a database, WAL or shared-memory file an older version made 0644). */
export function tightenIfOurs(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // Only a file this user owns can be changed; a file made by someone else is theirs to fix.
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(file, stat.mode & 0o700);
}

/** The SQLite files beside a database that exist while it is open. */
export function sqliteCompanionFiles(databaseFile: string): string[] {
  return [`${databaseFile}-wal`, `${databaseFile}-shm`, `${databaseFile}-journal`];
}
