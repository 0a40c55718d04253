import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`no way into the owners team without being an owner (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('a member with manage-membership, manage-teams and access-secret-teams cannot join the owners team or take its token', async () => {
      const org = await createOrganization(ctx);
      const admin = await addMember(ctx, org);
      const admins = await createTeam(ctx, org, {
        'organization-access': { 'manage-membership': true, 'manage-teams': true, 'access-secret-teams': true },
      });
      await addToTeam(org, admins.id, admin.username);

      const shown = await admin.api.get(`/teams/${org.ownersTeamId}`);
      assert.equal(shown.status, 200, 'access-secret-teams shows the owners team');
      assert.equal(shown.body.data.attributes.permissions['can-update-membership'], false);
      assert.equal(shown.body.data.attributes.permissions['can-update-api-token'], false);

      const join = await admin.api.post(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: admin.username }] });
      assert.equal(join.status, 404);
      const byMembership = await admin.api.post(`/teams/${org.ownersTeamId}/relationships/organization-memberships`, {
        data: [{ type: 'organization-memberships', id: admin.membershipId }],
      });
      assert.equal(byMembership.status, 404);
      assert.equal((await admin.api.post(`/teams/${org.ownersTeamId}/authentication-token`, {})).status, 404);
      assert.equal((await admin.api.post(`/teams/${org.ownersTeamId}/authentication-tokens`, {})).status, 404);

      const owners = await org.owner.api.get(`/teams/${org.ownersTeamId}`);
      assert.equal(owners.body.data.attributes['users-count'], 1, 'the owners team is unchanged');
      // The same member still manages other secret teams.
      const other = await createTeam(ctx, org);
      const joinOther = await admin.api.post(`/teams/${other.id}/relationships/users`, { data: [{ type: 'users', id: admin.username }] });
      assert.equal(joinOther.status, 204);
    });
  });
}
