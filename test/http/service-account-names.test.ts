import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam, siteAdmin, unique, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const RESERVED = /^(api-team_|api-org-|api-site-admin)/i;

/**
 * Issue 14, item 7: service accounts are known by a flag and their owner, never by name, and their name
 * prefixes are reserved, so no user or invitation can stand in for one.
 */
for (const dialect of testDialects()) {
  describe(`service-account names cannot be squatted (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    /** Invites an address nobody registered; answers the user the invitation created. */
    async function inviteNewAddress(org: TestOrganization, email: string): Promise<{ id: string; username: string }> {
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email } },
      });
      assertStatus(invited, 201);
      const userId = invited.body.data.relationships.user.data.id as string;
      const listed = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?include=user&filter[email]=${encodeURIComponent(email)}`);
      const user = listed.body.included.find((candidate: any) => candidate.id === userId);
      return { id: userId, username: user.attributes.username };
    }

    // First, before anything else here asks for the site admin's account.
    it('an invitation named after the site admin\'s account does not become it', async () => {
      const org = await createOrganization(ctx);
      const squatter = await inviteNewAddress(org, 'api-site-admin@evil.test');
      assert.doesNotMatch(squatter.username, RESERVED);
      const account = await siteAdmin(ctx).get('/account/details');
      assertStatus(account, 200);
      assert.notEqual(account.body.data.id, squatter.id);
      assert.equal(account.body.data.attributes['is-service-account'], true);
    });

    it('usernames with a reserved prefix are refused (422 on username), in any case', async () => {
      for (const username of ['api-team_abc', 'API-TEAM_abc', 'api-org-acme', 'Api-Org-x', 'api-site-admin', 'api-site-admin2']) {
        const created = await siteAdmin(ctx).post('/admin/users', {
          data: { type: 'users', attributes: { username, email: `${unique('r')}@example.test` } },
        });
        assert.equal(assertError(created, 422, /reserved/).source?.pointer, '/data/attributes/username', username);
      }
      for (const username of [`api-teams${unique('')}`, `apiteam_${unique('')}`, `api-organizer${unique('')}`]) {
        assertStatus(await siteAdmin(ctx).post('/admin/users', { data: { type: 'users', attributes: { username, email: `${unique('r')}@example.test` } } }), 201);
      }
    });

    it('an invitation named after a team\'s service account does not become it', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const accountName = `api-team_${team.id.slice('team-'.length)}`;
      const squatter = await inviteNewAddress(org, `${accountName}@evil.test`);
      assert.doesNotMatch(squatter.username, RESERVED);

      const issued = await org.owner.api.post(`/teams/${team.id}/authentication-token`, {});
      assertStatus(issued, 201);
      const account = await new ApiClient(ctx.app, issued.body.data.attributes.token).get('/account/details');
      assertStatus(account, 200);
      assert.notEqual(account.body.data.id, squatter.id);
      assert.equal(account.body.data.attributes.username, accountName);
      assert.equal(account.body.data.attributes['is-service-account'], true);
      // The team counts its service account (not listed among its users, as HCP), and not the squatter.
      const shown = await org.owner.api.get(`/teams/${team.id}?include=users`);
      assert.equal(shown.body.data.attributes['users-count'], 1);
      assert.deepEqual(shown.body.data.relationships.users.data, []);
    });

    it('an invitation named after the organization token\'s account does not become it', async () => {
      const org = await createOrganization(ctx);
      const squatter = await inviteNewAddress(org, `api-org-${org.name}@evil.test`);
      assert.doesNotMatch(squatter.username, RESERVED);
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(issued, 201);
      const account = await new ApiClient(ctx.app, issued.body.data.attributes.token).get('/account/details');
      assertStatus(account, 200);
      assert.notEqual(account.body.data.id, squatter.id);
      assert.equal(account.body.data.attributes['is-service-account'], true);
    });

    it('a user who took such a name before it was reserved is never adopted as a service account', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const squatters = new Map<string, string>();
      for (const username of [`api-team_${team.id.slice('team-'.length)}`, `api-org-${org.name}`]) {
        const id = `user-${unique('squat').padEnd(16, 'x').slice(0, 16)}`;
        await ctx.handle.db
          .insertInto('users')
          .values({ id, username, username_lower: username.toLowerCase(), email: null, email_lower: null, is_service_account: 0, service_account_owner: null, created_at: new Date().toISOString() })
          .execute();
        squatters.set(username, id);
      }

      const teamToken = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } });
      assertStatus(teamToken, 201);
      const asTeam = await new ApiClient(ctx.app, teamToken.body.data.attributes.token).get('/account/details');
      assertStatus(asTeam, 200);
      assert.ok(![...squatters.values()].includes(asTeam.body.data.id));
      assert.equal(asTeam.body.data.attributes['is-service-account'], true);
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 1);
      assert.deepEqual(shown.body.data.relationships.users.data, []);

      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(orgToken, 201);
      const asOrg = await new ApiClient(ctx.app, orgToken.body.data.attributes.token).get('/account/details');
      assertStatus(asOrg, 200);
      assert.ok(![...squatters.values()].includes(asOrg.body.data.id));
      assert.equal(asOrg.body.data.attributes['is-service-account'], true);
    });
  });
}
