/**
 * Expand, then contract (issue 40): during a rolling upgrade the nodes of the previous release keep serving
 * on the schema the first new node migrated, so a migration may add tables and columns but never drop or
 * rename one they read. Two checks: a static one over the migration files (dropColumn, dropTable, renameTo,
 * renameColumn and their raw SQL forms), and one by effect: the migrations are applied one at a time to an
 * empty SQLite database and every column present before a migration must still be there after it (which
 * also catches a rename or a rebuild that loses a column, whatever the code looks like).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { schemaShapeOf, type SchemaShape } from '../../src/ops/expected-schema.js';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');

/** Any statement that removes or renames a table or a column, as Kysely's builder or as raw SQL. */
const REMOVING = /\.(dropColumn|dropTable|renameTo|renameColumn)\(|\b(drop\s+(column|table)|rename\s+(to|column))\b/gi;

/**
 * History already shipped, each entry explained. Nothing may be added here for a new migration: a removal
 * waits for a later release than the one that stopped reading the column, and says so in CHANGELOG.md.
 */
const SHIPPED_REMOVALS: Record<string, { statements: number; lost: string[]; why: string }> = {
  // Archives moved into configuration_archive_chunks; 031 adds the column back, empty, for older nodes.
  '010-configuration-archive-chunks': { statements: 1, lost: ['configuration_versions.archive'], why: 'restored by 031' },
  // Plan JSON and logs moved into phase_upload_chunks; the 500s of issue 40. 031 adds the columns back, empty.
  '013-phase-upload-chunks': { statements: 2, lost: ['plans.log', 'applies.log', 'plans.json_output', 'applies.json_output'], why: 'restored by 031' },
  // A rebuild (SQLite cannot drop a unique constraint): the table comes back under its own name with every
  // column it had, so an old node's statements still work; the effect check below confirms no column is lost.
  '016-required-approvals': { statements: 2, lost: [], why: 'rebuilt under the same name with every column' },
};

function removingStatements(file: string): string[] {
  const text = fs.readFileSync(path.join(migrationsDir, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  return [...text.matchAll(REMOVING)].map((match) => match[0]);
}

function lostColumns(before: SchemaShape, after: SchemaShape): string[] {
  const lost: string[] = [];
  for (const [table, columns] of before) {
    const now = after.get(table);
    for (const column of columns) if (!now?.has(column)) lost.push(`${table}.${column}`);
  }
  return lost.sort();
}

describe('migrations only add (expand, then contract)', () => {
  it('no migration file drops or renames a table or column, except the shipped history listed', () => {
    const files = fs.readdirSync(migrationsDir).filter((file) => file.endsWith('.ts'));
    assert.ok(files.length >= Object.keys(MIGRATIONS).length, 'every registered migration has its file');
    for (const file of files) {
      const name = file.replace(/\.ts$/, '');
      const found = removingStatements(file);
      const allowed = SHIPPED_REMOVALS[name]?.statements ?? 0;
      assert.equal(found.length, allowed, `${file} drops or renames a table or column (${found.join(', ')}): old nodes still read it during a rolling upgrade; add instead, and remove only in a later release`);
    }
  });

  it('applied one at a time, no migration loses a column the schema before it had (except shipped history, later restored)', async () => {
    const memory = new SQLite(':memory:');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: memory }) });
    try {
      let before = schemaShapeOf(memory);
      const everLost = new Set<string>();
      const applied: Record<string, Migration> = {};
      for (const name of Object.keys(MIGRATIONS).sort()) {
        applied[name] = MIGRATIONS[name]!;
        const { error } = await new Migrator({ db, provider: { getMigrations: async () => ({ ...applied }) } }).migrateToLatest();
        if (error) throw error;
        const after = schemaShapeOf(memory);
        const lost = lostColumns(before, after).filter((column) => column.split('.')[0] !== 'kysely_migration');
        assert.deepEqual(lost, (SHIPPED_REMOVALS[name]?.lost ?? []).slice().sort(), `${name} loses columns the release before it reads`);
        for (const column of lost) everLost.add(column);
        before = after;
      }
      // The shipped removals are handled: every column an old release read is there again at the end.
      const missing = [...everLost].filter((column) => { const [table, col] = column.split('.'); return !before.get(table!)?.has(col!); });
      assert.deepEqual(missing, [], 'columns dropped by shipped migrations are restored (031)');
    } finally {
      await db.destroy();
    }
  });
});
