/**
 * Migration 013 moves plan JSON and logs stored before it (columns of `plans` and `applies`) into the
 * pieces table: a plan uploaded before the upgrade is still served byte for byte, its log too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { PhaseUploadsRepository } from '../../src/runs/phase-uploads.repository.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`migration 013: plan JSON and logs in pieces (${dialect})`, () => {
    it('moves each stored plan JSON and log into one piece, points the phase at it, drops the old columns, and 031 brings them back empty', async () => {
      const database = await freshDatabaseUrl(dialect);
      const handle = openDatabase(database.url);
      try {
        const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
        assert.equal((await migrator.migrateTo('012-agent-execution')).error, undefined);
        const db = handle.db as unknown as Kysely<any>;
        const now = new Date().toISOString();
        await db.insertInto('organizations').values({ name: 'acme', name_lower: 'acme', email: 'ops@acme.test', feature_set: 'Business', created_at: now, updated_at: now }).execute();
        await db.insertInto('workspaces').values({ id: 'ws-1', organization_name: 'acme', name: 'w', name_lower: 'w', created_at: now, updated_at: now }).execute();
        await db.insertInto('runs').values({ id: 'run-1', workspace_id: 'ws-1', status: 'planning', status_timestamps: '{}', message: '', plan_only: 0, auto_apply: 0, created_at: now, updated_at: now }).execute();
        const planJson = '{"format_version":"1.2","note":"grüße ✓"}';
        const log = Buffer.from([0, 1, 2, 0xff, 0xfe]);
        const phase = { run_id: 'run-1', status: 'running', status_timestamps: '{}', created_at: now, updated_at: now };
        await db.insertInto('plans').values({ ...phase, id: 'plan-1', json_output: planJson, log }).execute();
        await db.insertInto('applies').values({ ...phase, id: 'apply-1', json_output: null, log: null }).execute();

        assert.equal((await migrator.migrateTo('013-phase-upload-chunks')).error, undefined);
        for (const column of ['json_output', 'log']) {
          await assert.rejects(sql`select ${sql.ref(column)} from plans`.execute(handle.db), `plans.${column} is gone after 013`);
        }
        assert.equal((await migrator.migrateToLatest()).error, undefined);
        const plan = await handle.db.selectFrom('plans').selectAll().where('id', '=', 'plan-1').executeTakeFirstOrThrow();
        const apply = await handle.db.selectFrom('applies').selectAll().where('id', '=', 'apply-1').executeTakeFirstOrThrow();
        const uploads = new PhaseUploadsRepository(handle.db);
        const read = async (id: string) => {
          const pieces: Buffer[] = [];
          for await (const piece of uploads.read(id)) pieces.push(piece);
          return Buffer.concat(pieces);
        };
        assert.ok((await read(plan.json_upload_id!)).equals(Buffer.from(planJson, 'utf8')));
        assert.equal(plan.json_bytes, Buffer.byteLength(planJson));
        assert.ok((await read(plan.log_upload_id!)).equals(log));
        assert.equal(plan.log_bytes, log.length);
        assert.deepEqual([apply.json_upload_id, apply.log_upload_id, apply.json_bytes, apply.log_bytes], [null, null, null, null]);
        // Migration 031 brings the columns back, empty, for nodes of older releases (expand, then contract).
        for (const table of ['plans', 'applies']) {
          const { rows } = await sql<{ json_output: unknown; log: unknown }>`select json_output, log from ${sql.table(table)}`.execute(handle.db);
          assert.ok(rows.length > 0 && rows.every((row) => row.json_output === null && row.log === null), `${table}: restored columns hold nothing`);
        }
        // The pieces go with their run.
        await handle.db.deleteFrom('runs').where('id', '=', 'run-1').execute();
        assert.equal((await handle.db.selectFrom('phase_upload_chunks').select('upload_id').execute()).length, 0);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
