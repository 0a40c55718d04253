import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from './database.js';

/** Enough to need fresh pages (SQLite: 16 of 4 KiB) and WAL space, not enough to cost anything. */
const PROBE_BYTES = 64 * 1024;
/** Per process, so that nodes probing together never meet on one name. */
const PROBE_TABLE = `teamstage_write_probe_${randomBytes(4).toString('hex')}`;

/**
 * Proves that the database takes writes now, or throws what it says instead (storage-failures.ts):
 * one committed transaction that creates a scratch table, fills it and drops it again. It leaves nothing
 * behind and needs no table of the schema, yet it allocates pages and writes the log as real writes do,
 * so a full disk, a read-only file or a standby fail it as they fail them. Random bytes: a compressible
 * payload would not need the space it claims.
 */
export async function probeWrite(handle: DatabaseHandle): Promise<void> {
  const payloadType = handle.dialect === 'postgres' ? sql`bytea` : sql`blob`;
  await handle.db.transaction().execute(async (trx) => {
    await sql`create table ${sql.id(PROBE_TABLE)} (payload ${payloadType})`.execute(trx);
    await sql`insert into ${sql.id(PROBE_TABLE)} (payload) values (${randomBytes(PROBE_BYTES)})`.execute(trx);
    await sql`drop table ${sql.id(PROBE_TABLE)}`.execute(trx);
  });
}
