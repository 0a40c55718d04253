import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { settingsOnCreate } from '../../src/workspaces/workspace-settings.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

/**
 * Migration 045 on a database written before it (issue 36): every existing organization gets its Default Project
 * and every existing workspace lands in it; organizations made afterwards are born with theirs.
 */
for (const dialect of testDialects()) {
  describe(`migration 045: a default project for existing organizations (${dialect})`, () => {
    it('backfills one Default Project per organization and puts its workspaces in it', async () => {
      const database = await freshDatabaseUrl(dialect);
      const handle = openDatabase(database.url);
      try {
        const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
        const upTo = await migrator.migrateTo('040-policy-set-parameters');
        assert.equal(upTo.error, undefined);
        const now = new Date().toISOString();
        for (const name of ['acme', 'globex']) {
          await sql`insert into organizations (name, name_lower, email, feature_set, created_at, updated_at)
                    values (${name}, ${name}, ${`ops@${name}.test`}, 'Business', ${now}, ${now})`.execute(handle.db);
        }
        const workspace = (id: string, organization: string) =>
          handle.db.insertInto('workspaces').values({
            id, organization_name: organization, name: id, name_lower: id, description: null, auto_apply: 0, working_directory: '',
            execution_mode: 'remote', execution_mode_overwritten: 0, auto_destroy_at: null, locked: 0, locked_by_kind: null, locked_by_id: null,
            required_approvals: 1, prevent_self_approval: 1, created_at: now, updated_at: now, current_configuration_version_id: null, current_run_id: null,
            ...settingsOnCreate({}),
          } as never).execute();
        await workspace('ws-acme1', 'acme');
        await workspace('ws-acme2', 'acme');
        await workspace('ws-globex', 'globex');

        await migrateToLatest(handle);

        const projects = await handle.db.selectFrom('projects').select(['id', 'organization_name', 'name', 'default_of']).orderBy('organization_name').execute();
        assert.deepEqual(projects.map((row) => [row.organization_name, row.name, row.default_of]), [['acme', 'Default Project', 'acme'], ['globex', 'Default Project', 'globex']]);
        const byOrganization = Object.fromEntries(projects.map((row) => [row.organization_name, row.id]));
        const workspaces = await handle.db.selectFrom('workspaces').select(['id', 'project_id']).orderBy('id').execute();
        assert.deepEqual(workspaces, [
          { id: 'ws-acme1', project_id: byOrganization.acme },
          { id: 'ws-acme2', project_id: byOrganization.acme },
          { id: 'ws-globex', project_id: byOrganization.globex },
        ]);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
