import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ApiClient } from '../helpers/api-client.js';
import { addMember, addToTeam, createOrganization, createTeam, unique, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/**
 * With TEAMSTAGE_CACHE=on, authentication and organization standings are cached while the database is
 * unchanged (SQLite only; src/cache/remembered.ts around identity/authenticate.ts and
 * organizations/organization-gate.ts). Writes through the API must take effect at the very next request,
 * on each database; POSTs are used because they bypass the response cache.
 */
for (const dialect of testDialects()) {
describe(`cached identities are never stale (${dialect}, TEAMSTAGE_CACHE=on)`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp(dialect, { TEAMSTAGE_CACHE: 'on' });
  });
  after(() => ctx.close());

  const createTeamAs = (api: ApiClient, org: TestOrganization) =>
    api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: unique('t') } } });

  /** A member of a team that may manage teams, who has just created one (so their standing is cached). */
  const teamManager = async () => {
    const org = await createOrganization(ctx);
    const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true, 'manage-teams': true } });
    const member = await addMember(ctx, org);
    await addToTeam(org, managers.id, member.username);
    assert.equal((await createTeamAs(member.api, org)).status, 200);
    return { org, managers, member };
  };

  it('a member whose team loses manage-teams can no longer create teams', async () => {
    const { org, managers, member } = await teamManager();
    assert.equal((await createTeamAs(member.api, org)).status, 200);
    const lowered = await org.owner.api.patch(`/teams/${managers.id}`, {
      data: { type: 'teams', attributes: { 'organization-access': { 'manage-teams': false } } },
    });
    assert.equal(lowered.status, 200, lowered.text);
    assert.equal((await createTeamAs(member.api, org)).status, 404);
  });

  it('a user removed from the organization is refused at once', async () => {
    const { org, member } = await teamManager();
    assert.equal((await org.owner.api.delete(`/organization-memberships/${member.membershipId}`)).status, 204);
    assert.equal((await createTeamAs(member.api, org)).status, 404);
  });

  it('a deleted token is refused at once', async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true, 'manage-teams': true } });
    const created = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'c' } } });
    const teamApi = new ApiClient(ctx.app, created.body.data.attributes.token);
    assert.equal((await createTeamAs(teamApi, org)).status, 200);
    assert.equal((await org.owner.api.delete(`/authentication-tokens/${created.body.data.id}`)).status, 204);
    assert.equal((await createTeamAs(teamApi, org)).status, 401);
  });

  it('PostgreSQL caches no identity: even a write that bypasses Teamstage takes effect at once', { skip: dialect !== 'postgres' }, async () => {
    const org = await createOrganization(ctx);
    assert.equal((await createTeamAs(org.owner.api, org)).status, 200);
    const bypass = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await bypass.connect();
    try {
      await bypass.query('delete from tokens where user_id = $1', [org.owner.id]);
    } finally {
      await bypass.end();
    }
    assert.equal((await createTeamAs(org.owner.api, org)).status, 401);
  });
});
}
