import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const tokenBody = (attributes: Record<string, unknown>) => ({ data: { type: 'authentication-tokens', attributes } });

for (const dialect of testDialects()) {
  describe(`team tokens and the api-team service account (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('the legacy single token: 201, a new one replaces the old, DELETE revokes', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const first = await org.owner.api.post(`/teams/${team.id}/authentication-token`);
      assertStatus(first, 201);
      assert.equal(first.body.data.type, 'authentication-tokens');
      assert.equal(first.body.data.relationships.team.data.id, team.id);
      const firstApi = new ApiClient(ctx.app, first.body.data.attributes.token);
      assertStatus(await firstApi.get(`/teams/${team.id}`), 200);

      const second = await org.owner.api.post(`/teams/${team.id}/authentication-token`, tokenBody({}));
      assertStatus(second, 201);
      assertError(await firstApi.get(`/teams/${team.id}`), 401);
      const secondApi = new ApiClient(ctx.app, second.body.data.attributes.token);
      assertStatus(await secondApi.get(`/teams/${team.id}`), 200);

      assertStatus(await org.owner.api.delete(`/teams/${team.id}/authentication-token`), 204);
      assertError(await secondApi.get(`/teams/${team.id}`), 401);
    });

    it('several tokens per team with unique descriptions (422 on a duplicate), listed without secrets', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const ci = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'ci' }));
      assertStatus(ci, 201);
      assert.equal(ci.body.data.attributes.description, 'ci');
      const deploy = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'deploy' }));
      assertStatus(deploy, 201);
      const duplicate = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'ci' }));
      assert.equal(assertError(duplicate, 422).source?.pointer, '/data/attributes/description');
      // The same description on another team is fine.
      const other = await createTeam(ctx, org);
      assertStatus(await org.owner.api.post(`/teams/${other.id}/authentication-tokens`, tokenBody({ description: 'ci' })), 201);
      // The legacy token does not take part in description uniqueness.
      assertStatus(await org.owner.api.post(`/teams/${team.id}/authentication-token`), 201);

      const listed = await org.owner.api.get(`/teams/${team.id}/authentication-tokens`);
      assertStatus(listed, 200);
      assert.equal(listed.body.data.length, 3);
      assert.ok(listed.body.data.every((token: any) => token.attributes.token === undefined));
      assert.deepEqual(listed.body.data.map((token: any) => token.attributes.description).filter(Boolean).sort(), ['ci', 'deploy']);

      for (const token of [ci, deploy]) assertStatus(await new ApiClient(ctx.app, token.body.data.attributes.token).get(`/teams/${team.id}`), 200);
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${ci.body.data.id}`), 204);
      assertError(await new ApiClient(ctx.app, ci.body.data.attributes.token).get(`/teams/${team.id}`), 401);
      assertStatus(await new ApiClient(ctx.app, deploy.body.data.attributes.token).get(`/teams/${team.id}`), 200);
      assertError(await org.owner.api.delete(`/authentication-tokens/${ci.body.data.id}`), 404);
      assertStatus(await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'ci' })), 201);
    });

    it('expired-at: echoed when in the future, 422 when in the past or not a timestamp', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const created = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'a', 'expired-at': future }));
      assertStatus(created, 201);
      assert.equal(created.body.data.attributes['expired-at'], future);
      for (const value of [new Date(Date.now() - 60_000).toISOString(), 'tomorrow', '2030-13-45T00:00:00Z']) {
        const rejected = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: value, 'expired-at': value }));
        assert.equal(assertError(rejected, 422).source?.pointer, '/data/attributes/expired-at', value);
      }
    });

    it('a team with a token counts api-team_<suffix> in users-count, not in non-service-users-count, and does not list it among its users (HCP; issue 37)', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      let shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 0);

      const issued = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'x' }));
      shown = await org.owner.api.get(`/teams/${team.id}?include=users`);
      assert.equal(shown.body.data.attributes['users-count'], 1);
      assert.equal(shown.body.data.attributes['non-service-users-count'], 0, 'the service account is not a non-service user');
      // Listed, the provider's tfe_team_members would try to remove it from the team (422) and never converge.
      assert.deepEqual(shown.body.data.relationships.users.data, []);
      assert.equal(shown.body.included, undefined);
      const account = await new ApiClient(ctx.app, issued.body.data.attributes.token).get('/account/details');
      assert.equal(account.body.data.attributes.username, `api-team_${team.id.slice('team-'.length)}`);
      assert.equal(account.body.data.attributes['is-service-account'], true);

      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=${team.name}`);
      assert.equal(listed.body.data[0].attributes['users-count'], 2);
      assert.equal(listed.body.data[0].attributes['non-service-users-count'], 1);

      // An expired token no longer makes the service account a member.
      await ctx.handle.db.updateTable('tokens').set({ expired_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', issued.body.data.id).execute();
      await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
      shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 1);
      assert.deepEqual(shown.body.data.relationships.users.data, [{ id: member.id, type: 'users' }]);
    });

    it('a team token acts as its team: sees what the team sees and holds its rights', async () => {
      const org = await createOrganization(ctx);
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const otherSecret = await createTeam(ctx, org);
      const plain = await createTeam(ctx, org);
      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
      const plainToken = new ApiClient(ctx.app, (await org.owner.api.post(`/teams/${plain.id}/authentication-token`)).body.data.attributes.token);
      const managersToken = new ApiClient(ctx.app, (await org.owner.api.post(`/teams/${managers.id}/authentication-token`)).body.data.attributes.token);

      const seen = await plainToken.get(`/organizations/${org.name}/teams`);
      assertStatus(seen, 200);
      assert.deepEqual(seen.body.data.map((t: any) => t.id).sort(), [visible.id, plain.id].sort());
      assertError(await plainToken.get(`/teams/${otherSecret.id}`), 404);
      assertError(await plainToken.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'nope' } } }), 404);

      const created = await managersToken.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'by-team-token' } } });
      assertStatus(created, 200);
      assertStatus(await managersToken.patch(`/teams/${visible.id}`, { data: { type: 'teams', attributes: { name: 'renamed-by-token' } } }), 200);
      assertError(await managersToken.patch(`/teams/${otherSecret.id}`, { data: { type: 'teams', attributes: { name: 'nope' } } }), 404);
    });

    it("the owners team's token acts as an owner", async () => {
      const org = await createOrganization(ctx);
      const secret = await createTeam(ctx, org);
      const ownersToken = new ApiClient(ctx.app, (await org.owner.api.post(`/teams/${org.ownersTeamId}/authentication-token`)).body.data.attributes.token);
      const listed = await ownersToken.get(`/organizations/${org.name}/teams`);
      assert.deepEqual(listed.body.data.map((t: any) => t.id).sort(), [org.ownersTeamId, secret.id].sort());
      assertStatus(await ownersToken.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'from-owners-token' } } }), 200);
      assertStatus(await ownersToken.patch(`/teams/${secret.id}`, { data: { type: 'teams', attributes: { 'organization-access': { 'manage-modules': true } } } }), 200);
      assertStatus(await ownersToken.delete(`/teams/${secret.id}`), 204);
      assertStatus(await ownersToken.post(`/organizations/${org.name}/authentication-token`), 201);
    });

    it('member token management: members of the team when allowed, manage-teams on visible teams, nobody else', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      const stranger = await addMember(ctx, org);
      const team = await createTeam(ctx, org);
      await addToTeam(org, team.id, member.username);

      const issued = await member.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'mine' }));
      assertStatus(issued, 201);
      assertStatus(await member.api.get(`/teams/${team.id}/authentication-tokens`), 200);
      assert.equal((await member.api.get(`/teams/${team.id}`)).body.data.attributes.permissions['can-update-api-token'], true);
      assertError(await stranger.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'theirs' })), 404);
      assertError(await stranger.api.delete(`/authentication-tokens/${issued.body.data.id}`), 404);

      assertStatus(await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { 'allow-member-token-management': false } } }), 200);
      assertError(await member.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'again' })), 404);
      assertError(await member.api.post(`/teams/${team.id}/authentication-token`), 404);
      assertError(await member.api.delete(`/authentication-tokens/${issued.body.data.id}`), 404);
      assert.equal((await member.api.get(`/teams/${team.id}`)).body.data.attributes.permissions['can-update-api-token'], false);

      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
      await addToTeam(org, managers.id, stranger.username);
      const visible = await createTeam(ctx, org, { visibility: 'organization', 'allow-member-token-management': false });
      assertStatus(await stranger.api.post(`/teams/${visible.id}/authentication-tokens`, tokenBody({ description: 'managed' })), 201);
      assertError(await stranger.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'secret' })), 404);
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${issued.body.data.id}`), 204);
    });
  });
}
