/**
 * GET and PATCH /teams/:id read the request's token together with the team (teams/team-read-with-credential.ts,
 * issue 39). The token still decides alone: an unknown, revoked or expired token, or a kind that reads no team,
 * is a 401 whether the team exists or not, and the team read along with it is never shown; a known token sees
 * exactly what its principal may see (its own team, its organization's teams by their visibility, 404 elsewhere).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, siteAdmin, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`the token read with the team (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let other: TestOrganization;
    let secretId: string;
    let otherSecretId: string;
    let teamToken: { id: string; api: ApiClient };

    const issueTeamToken = async (teamId: string) => {
      const issued = await org.owner.api.post(`/teams/${teamId}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: {} } });
      assertStatus(issued, 201);
      return { id: issued.body.data.id as string, api: new ApiClient(ctx.app, issued.body.data.attributes.token) };
    };

    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
      other = await createOrganization(ctx);
      secretId = (await createTeam(ctx, org, { visibility: 'secret' })).id;
      otherSecretId = (await createTeam(ctx, other, { visibility: 'secret' })).id;
      teamToken = await issueTeamToken(secretId);
    });
    after(() => ctx.close());

    it('an unknown token is a 401 for a team that exists and for one that does not', async () => {
      const stranger = new ApiClient(ctx.app, 'not-a-token.atlasv1.' + 'x'.repeat(40));
      assertError(await stranger.get(`/teams/${secretId}`), 401);
      assertError(await stranger.get('/teams/team-doesnotexist'), 401);
      assertError(await stranger.patch(`/teams/${secretId}`, { data: { type: 'teams', attributes: { visibility: 'organization' } } }), 401);
    });

    it('a team token sees its own secret team, not a secret team of another organization, and 404 for an unknown id', async () => {
      const own = await teamToken.api.get(`/teams/${secretId}`);
      assertStatus(own, 200);
      assert.equal(own.body.data.id, secretId);
      assertError(await teamToken.api.get(`/teams/${otherSecretId}`), 404);
      assertError(await teamToken.api.get('/teams/team-doesnotexist'), 404);
    });

    it("a team token's standing is its own team's access in that organization, none elsewhere", async () => {
      // The token's team is read from the token's own join, not a subquery (team-read-with-credential.ts).
      const plain = await issueTeamToken((await createTeam(ctx, org)).id);
      assertError(await plain.api.get(`/teams/${secretId}`), 404);
      const readerTeam = (await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true, 'access-secret-teams': true } })).id;
      const seesSecret = await issueTeamToken(readerTeam);
      assertStatus(await seesSecret.api.get(`/teams/${secretId}`), 200);
      assertError(await seesSecret.api.get(`/teams/${otherSecretId}`), 404);
      const owners = await issueTeamToken(org.ownersTeamId);
      const read = await owners.api.get(`/teams/${secretId}`);
      assertStatus(read, 200);
      assert.equal(read.body.data.attributes.permissions['can-destroy'], true);
      assertError(await owners.api.get(`/teams/${otherSecretId}`), 404);
      // Its own team's access is read at each request: taken away, the next read no longer sees the secret team.
      const taken = await org.owner.api.patch(`/teams/${readerTeam}`, { data: { type: 'teams', attributes: { 'organization-access': { 'access-secret-teams': false } } } });
      assertStatus(taken, 200);
      assertError(await seesSecret.api.get(`/teams/${secretId}`), 404);
    });

    it('a user sees a secret team only as its member; an owner of another organization sees none of this one', async () => {
      const member = await addMember(ctx, org);
      assertError(await member.api.get(`/teams/${secretId}`), 404);
      await addToTeam(org, secretId, member.username);
      assertStatus(await member.api.get(`/teams/${secretId}`), 200);
      assertError(await other.owner.api.get(`/teams/${secretId}`), 404);
      assertStatus(await org.owner.api.get(`/teams/${secretId}`), 200);
    });

    it('a site admin and an organization token read the team (they need no rows of standing)', async () => {
      assertStatus(await siteAdmin(ctx).get(`/teams/${secretId}`), 200);
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(orgToken, 201);
      const orgApi = new ApiClient(ctx.app, orgToken.body.data.attributes.token);
      assertStatus(await orgApi.get(`/teams/${secretId}`), 200);
      assertError(await orgApi.get(`/teams/${otherSecretId}`), 404);
    });

    it('a revoked token is refused at its next request, an expired one too', async () => {
      const revoked = await issueTeamToken(secretId);
      assertStatus(await revoked.api.get(`/teams/${secretId}`), 200);
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${revoked.id}`), 204);
      assertError(await revoked.api.get(`/teams/${secretId}`), 401);

      const expiring = await issueTeamToken(secretId);
      assertStatus(await expiring.api.get(`/teams/${secretId}`), 200);
      await ctx.services.handle.db.updateTable('tokens').set({ expired_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expiring.id).execute();
      // Written beside the API: on SQLite, requests read the durable snapshot, which this write joins once synced.
      await ctx.services.handle.durable?.();
      assertError(await expiring.api.get(`/teams/${secretId}`), 401);
    });

    it('an audit trail token reads no team (401), as on every route but the audit trail', async () => {
      const audit = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assertStatus(audit, 201);
      assertError(await new ApiClient(ctx.app, audit.body.data.attributes.token).get(`/teams/${secretId}`), 401);
    });
  });
}
