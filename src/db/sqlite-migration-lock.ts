import fs from 'node:fs';
import { PRIVATE_FILE_MODE } from './private-files.js';

/**
 * Kysely does not lock migrations on SQLite (it assumes one process). Several Teamstage processes may
 * share one SQLite file on one machine, so they take turns through a lock file created exclusively
 * (`wx`). A lock left by a process that died is recognised by its pid and taken over.
 */
export async function withSqliteMigrationLock<T>(databaseFile: string, work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  if (databaseFile === ':memory:') return work();
  const lockFile = `${databaseFile}.migrate-lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx', mode: PRIVATE_FILE_MODE });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (holderIsGone(lockFile)) {
        fs.rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the migration lock ${lockFile}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

function holderIsGone(lockFile: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(lockFile, 'utf8'));
  } catch {
    return false; // being written or just removed: look again
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
