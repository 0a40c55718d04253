import type { Config } from '../config.js';
import { BackupError, backupSqlite, describeBackup, sqliteFileOf } from './backup.js';
import { describeRestore, RestoreRefused, restoreSqlite } from './restore.js';

/** `teamstage backup <file>` and `teamstage restore <file>`: exit codes and what the operator reads. */
export async function backupCommand(file: string | undefined, config: Config): Promise<number> {
  if (!file) return usage('backup');
  try {
    const result = await backupSqlite({ databaseFile: sqliteFileOf(config.databaseUrl, 'backup'), dataDir: config.dataDir, destination: file });
    for (const line of describeBackup(result, config.dataDir)) console.log(line);
    return 0;
  } catch (error) {
    return refused('backup', error);
  }
}

export async function restoreCommand(file: string | undefined, config: Config): Promise<number> {
  if (!file) return usage('restore');
  try {
    const result = await restoreSqlite({ backupFile: file, databaseFile: sqliteFileOf(config.databaseUrl, 'restore'), dataDir: config.dataDir });
    for (const line of describeRestore(result, { dataDir: config.dataDir, siteTokenConfigured: Boolean(config.siteToken) })) console.log(line);
    return 0;
  } catch (error) {
    return refused('restore', error);
  }
}

function usage(command: string): number {
  console.error(`usage: teamstage ${command} <file>`);
  return 1;
}

function refused(command: string, error: unknown): number {
  if (!(error instanceof BackupError || error instanceof RestoreRefused)) throw error;
  console.error(`${command} refused: ${error.message}`);
  return 1;
}
