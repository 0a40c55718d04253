import fs from 'node:fs';
import type SQLite from 'better-sqlite3';
import { hashToken } from '../identity/token-secrets.js';

/** The tables an operator recognises, counted in what backup and restore print. */
const COUNTED = ['organizations', 'teams', 'users', 'workspaces', 'runs', 'tokens'] as const;

export interface SqliteSummary {
  /** Applied migrations in order (Kysely's table), empty for a database Teamstage never migrated. */
  migrations: string[];
  counts: Record<(typeof COUNTED)[number], number>;
}

function hasTable(db: SQLite.Database, name: string): boolean {
  return db.prepare("select 1 from sqlite_schema where type = 'table' and name = ?").get(name) !== undefined;
}

/** `PRAGMA integrity_check`'s answer: 'ok', or the first problems it found, joined. */
export function integrityCheck(db: SQLite.Database): string {
  const rows = db.pragma('integrity_check(20)', { simple: false }) as { integrity_check: string }[];
  return rows.map((row) => row.integrity_check).join('; ');
}

export function summarize(db: SQLite.Database): SqliteSummary {
  const migrations = hasTable(db, 'kysely_migration')
    ? (db.prepare('select name from kysely_migration order by name').pluck().all() as string[])
    : [];
  const counts = Object.fromEntries(
    COUNTED.map((table) => [table, hasTable(db, table) ? (db.prepare(`select count(*) from ${table}`).pluck().get() as number) : 0]),
  ) as SqliteSummary['counts'];
  return { migrations, counts };
}

export function describeSummary(summary: SqliteSummary): string {
  const counts = Object.entries(summary.counts)
    .map(([table, count]) => `${count} ${table}`)
    .join(', ');
  const schema = summary.migrations.at(-1) ?? 'none';
  return `${counts} (schema: migration ${schema})`;
}

/**
 * Whether the plaintext in `<data dir>/site-token` is a site token of this database. The database holds
 * site tokens only as SHA-256 digests, so this is the one way to tell whether that file still works.
 */
export function siteTokenFileMatches(db: SQLite.Database, tokenFile: string): 'matches' | 'differs' | 'no file' {
  if (!fs.existsSync(tokenFile)) return 'no file';
  const secret = fs.readFileSync(tokenFile, 'utf8').trim();
  if (!hasTable(db, 'tokens')) return 'differs';
  const row = db.prepare("select 1 from tokens where kind = 'site' and token_hash = ?").get(hashToken(secret));
  return row ? 'matches' : 'differs';
}
