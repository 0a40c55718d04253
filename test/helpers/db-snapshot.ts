import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

/** Names of the application's tables (migration bookkeeping and node heartbeats left out). */
async function tableNames(handle: DatabaseHandle): Promise<string[]> {
  if (handle.dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(handle.db);
    return rows.rows.map((row) => row.name).filter((name) => !name.startsWith('kysely_')).sort();
  }
  const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(handle.db);
  return rows.rows.map((row) => row.name).filter((name) => !name.startsWith('kysely_') && name !== 'cluster_nodes').sort();
}

/**
 * Bookkeeping that any authenticated request may write, whatever it asks for: a token's `last_used_at`
 * (identity/token-usage.ts). Left out, so that "nothing changed" means the request itself changed nothing.
 */
const USAGE_COLUMNS: Record<string, string> = { tokens: 'last_used_at' };

/** A digest of every row of every table: equal digests mean nothing changed. */
export async function databaseDigest(handle: DatabaseHandle): Promise<string> {
  const hash = createHash('sha256');
  for (const table of await tableNames(handle)) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(handle.db);
    const usage = USAGE_COLUMNS[table];
    const lines = rows.rows
      .map((row) => JSON.stringify(row, (key, value) => (key === usage ? undefined : Buffer.isBuffer(value) ? value.toString('base64') : typeof value === 'bigint' ? String(value) : value)))
      .sort();
    hash.update(`${table}\n${lines.join('\n')}\n`);
  }
  return hash.digest('hex');
}
