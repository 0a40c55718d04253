import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

/**
 * Migration 009 on a database written before it (issue 14, item 7): service accounts get their owner from
 * the name they were created with, and a team that adopted a person by name loses that link.
 */
for (const dialect of testDialects()) {
  describe(`migration 009: service accounts known by owner (${dialect})`, () => {
    it('backfills owners of existing service accounts and unlinks adopted people', async () => {
      const database = await freshDatabaseUrl(dialect);
      const handle = openDatabase(database.url);
      try {
        const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
        const upTo = await migrator.migrateTo('008-token-acts-as-person');
        assert.equal(upTo.error, undefined);
        const now = new Date().toISOString();
        const user = (id: string, username: string, service: 0 | 1) =>
          sql`insert into users (id, username, username_lower, email, email_lower, is_service_account, created_at)
              values (${id}, ${username}, ${username.toLowerCase()}, null, null, ${service}, ${now})`.execute(handle.db);
        await user('user-teamaccount000001', 'api-team_AAAAAAAAAAAAAAAA', 1);
        await user('user-orgaccount0000001', 'api-org-acme', 1);
        await user('user-siteaccount000001', 'api-site-admin', 1);
        await user('user-squatter000000001', 'api-team_BBBBBBBBBBBBBBBB', 0);
        await sql`insert into organizations (name, name_lower, email, feature_set, created_at, updated_at)
                  values ('acme', 'acme', 'ops@acme.test', 'Business', ${now}, ${now})`.execute(handle.db);
        const team = (id: string, name: string, account: string) =>
          sql`insert into teams (id, organization_name, name, name_lower, sso_team_id, visibility, allow_member_token_management,
                organization_access, is_owners, service_account_user_id, created_at, updated_at)
              values (${id}, 'acme', ${name}, ${name}, null, 'secret', 1, '{}', 0, ${account}, ${now}, ${now})`.execute(handle.db);
        await team('team-AAAAAAAAAAAAAAAA', 'a', 'user-teamaccount000001');
        await team('team-BBBBBBBBBBBBBBBB', 'b', 'user-squatter000000001');

        await migrateToLatest(handle);

        const owners = await handle.db.selectFrom('users').select(['id', 'service_account_owner']).orderBy('id').execute();
        assert.deepEqual(
          Object.fromEntries(owners.map((row) => [row.id, row.service_account_owner])),
          {
            'user-orgaccount0000001': 'organization:acme',
            'user-siteaccount000001': 'site-admin',
            'user-squatter000000001': null,
            'user-teamaccount000001': 'team:team-AAAAAAAAAAAAAAAA',
          },
        );
        const links = await handle.db.selectFrom('teams').select(['id', 'service_account_user_id']).orderBy('id').execute();
        assert.deepEqual(links, [
          { id: 'team-AAAAAAAAAAAAAAAA', service_account_user_id: 'user-teamaccount000001' },
          { id: 'team-BBBBBBBBBBBBBBBB', service_account_user_id: null },
        ]);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
