/**
 * Migration 008 moves archives uploaded before it (one column of `configuration_versions`) into the
 * pieces table: a version uploaded before the upgrade still downloads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`migration 008: configuration archives in pieces (${dialect})`, () => {
    it('moves an archive stored before it into one piece drops the old column, and 031 brings it back empty', async () => {
      const database = await freshDatabaseUrl(dialect);
      const handle = openDatabase(database.url);
      try {
        const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
        const before = await migrator.migrateTo('007-jobs-notify-trigger');
        assert.equal(before.error, undefined);
        const db = handle.db as unknown as Kysely<any>;
        const now = new Date().toISOString();
        await db.insertInto('organizations').values({ name: 'acme', name_lower: 'acme', email: 'ops@acme.test', feature_set: 'Business', created_at: now, updated_at: now }).execute();
        await db.insertInto('workspaces').values({ id: 'ws-1', organization_name: 'acme', name: 'w', name_lower: 'w', created_at: now, updated_at: now }).execute();
        const archive = Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5]);
        for (const [id, stored] of [['cv-uploaded', archive], ['cv-pending', null]] as const) {
          await db
            .insertInto('configuration_versions')
            .values({
              id, workspace_id: 'ws-1', status: stored ? 'uploaded' : 'pending', status_timestamps: '{}', upload_token_hash: `hash-${id}`,
              archive: stored, archive_size: stored?.length ?? null, created_at: now, updated_at: now,
            })
            .execute();
        }

        const after = await migrator.migrateTo('010-configuration-archive-chunks');
        assert.equal(after.error, undefined);
        const pieces = await handle.db.selectFrom('configuration_archive_chunks').selectAll().execute();
        assert.equal(pieces.length, 1);
        assert.equal(pieces[0]!.configuration_version_id, 'cv-uploaded');
        assert.equal(pieces[0]!.position, 0);
        assert.ok(Buffer.from(pieces[0]!.data).equals(archive));
        await assert.rejects(sql`select archive from configuration_versions`.execute(handle.db), 'the old column is gone after 010');
        // Migration 031 brings it back, empty, for nodes of older releases (expand, then contract).
        assert.equal((await migrator.migrateToLatest()).error, undefined);
        const { rows } = await sql<{ archive: unknown }>`select archive from configuration_versions`.execute(handle.db);
        assert.deepEqual(rows.map((row) => row.archive), [null, null]);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
