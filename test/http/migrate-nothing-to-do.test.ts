/**
 * Issue 39: the start of a node over a migrated database asks it what is applied and stops there (two reads),
 * rather than running Kysely's Migrator (its tables' DDL, a lock and a transaction) to find nothing to do.
 * A migration still missing is still applied, including one that lands below the highest applied.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { LATEST_MIGRATION, migrateToLatest } from '../../src/db/migrate.js';
import { migratedDatabaseUrl, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`migrations at start (${dialect})`, () => {
    it('a migrated database: two reads, nothing written; a migration found missing is applied', async () => {
      const database = await migratedDatabaseUrl(dialect);
      const statements: string[] = [];
      const handle = openDatabase(database.url, { slowQueryMs: 0, onSlowQuery: (text) => statements.push(text) });
      try {
        assert.deepEqual(await migrateToLatest(handle), []);
        assert.equal(statements.length, 2, statements.join('\n'));
        assert.ok(statements.every((text) => /^select /i.test(text.trim())), statements.join('\n'));

        // The latest migration's record removed (its tables stay): the start runs it again, through the Migrator
        // (whether running it twice succeeds is the migration's business, not this test's).
        await sql`delete from kysely_migration where name = ${LATEST_MIGRATION}`.execute(handle.db);
        statements.length = 0;
        await migrateToLatest(handle).catch(() => {});
        assert.ok(statements.length > 2, `the Migrator ran: ${statements.length} statements`);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
