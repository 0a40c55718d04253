import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { MIGRATIONS } from '../db/migrate.js';

/** Tables and their columns, as SQLite reports them. */
export type SchemaShape = Map<string, Set<string>>;

/** The tables and columns of a SQLite database (SQLite's own and Kysely's lock table left out). */
export function schemaShapeOf(db: SQLite.Database): SchemaShape {
  const tables = db
    .prepare("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' and name <> 'kysely_migration_lock'")
    .pluck()
    .all() as string[];
  return new Map(tables.map((table) => [table, new Set(db.prepare(`select name from pragma_table_info(?)`).pluck().all(table) as string[])]));
}

/**
 * What a database migrated by exactly `applied` looks like: those migrations run on an empty in-memory
 * database. Undefined when `applied` is not the first migrations of this version in order (a gap: no
 * start could continue from it).
 */
export async function expectedShape(applied: readonly string[]): Promise<SchemaShape | undefined> {
  const known = Object.keys(MIGRATIONS).sort();
  if (applied.length === 0 || applied.length > known.length || applied.some((name, index) => name !== known[index])) return undefined;
  const wanted = Object.fromEntries(applied.map((name) => [name, MIGRATIONS[name]!])) as Record<string, Migration>;
  const memory = new SQLite(':memory:');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: memory }) });
  try {
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => wanted } }).migrateToLatest();
    if (error) throw error;
    return schemaShapeOf(memory);
  } finally {
    await db.destroy();
  }
}

/** What `actual` lacks of `expected`: `table x`, `column x.y`. Extra tables or columns are not a problem. */
export function missingFrom(actual: SchemaShape, expected: SchemaShape): string[] {
  const missing: string[] = [];
  for (const [table, columns] of expected) {
    const present = actual.get(table);
    if (!present) {
      missing.push(`table ${table}`);
      continue;
    }
    for (const column of columns) if (!present.has(column)) missing.push(`column ${table}.${column}`);
  }
  return missing;
}
