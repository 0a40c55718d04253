import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const users = (...usernames: string[]) => ({ data: usernames.map((id) => ({ type: 'users', id })) });
const memberships = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'organization-memberships', id })) });

for (const dialect of testDialects()) {
  describe(`team membership (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('adds and removes by username (204), idempotently', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const alice = await addMember(ctx, org);
      const bob = await addMember(ctx, org);
      const added = await org.owner.api.post(`/teams/${team.id}/relationships/users`, users(alice.username, bob.username.toUpperCase()));
      assertStatus(added, 204);
      assert.equal(added.text, '');
      assertStatus(await org.owner.api.post(`/teams/${team.id}/relationships/users`, users(alice.username)), 204);
      let shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 2);
      assert.equal(shown.body.data.attributes['non-service-users-count'], 2);
      assert.deepEqual(shown.body.data.relationships.users.data.map((u: any) => u.id).sort(), [alice.id, bob.id].sort());
      assert.deepEqual(
        shown.body.data.relationships['organization-memberships'].data.map((m: any) => m.id).sort(),
        [alice.membershipId, bob.membershipId].sort(),
      );

      assertStatus(await org.owner.api.delete(`/teams/${team.id}/relationships/users`, users(alice.username)), 204);
      shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.deepEqual(shown.body.data.relationships.users.data, [{ id: bob.id, type: 'users' }]);
      assert.equal(shown.body.data.attributes['users-count'], 1);
    });

    it('only active organization members can be added by username (422 with pointer)', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const member = await addMember(ctx, org);
      const outsider = await createUser(ctx);
      const invited = await createUser(ctx);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: invited.email } },
      }), 201);
      for (const username of [outsider.username, invited.username, 'nobody-by-this-name']) {
        const response = await org.owner.api.post(`/teams/${team.id}/relationships/users`, users(member.username, username));
        assert.equal(assertError(response, 422).source?.pointer, '/data/1/id');
      }
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 0, 'a rejected request adds nobody');
    });

    it('adds by organization membership id; an invited membership joins when accepted', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const member = await addMember(ctx, org);
      const user = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: user.email } },
      });
      const invitedId = invited.body.data.id as string;
      assertStatus(await org.owner.api.post(`/teams/${team.id}/relationships/organization-memberships`, memberships(member.membershipId, invitedId)), 204);
      let shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.deepEqual(shown.body.data.relationships.users.data, [{ id: member.id, type: 'users' }]);
      assert.equal(shown.body.data.attributes['users-count'], 1);

      assertStatus(await user.api.post(`/organization-memberships/${invitedId}/actions/accept`), 200);
      shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 2);
      assert.ok(shown.body.data.relationships.users.data.some((u: any) => u.id === user.id));
      // The new member now sees the secret team they belong to.
      assertStatus(await user.api.get(`/teams/${team.id}`), 200);

      assertStatus(await org.owner.api.delete(`/teams/${team.id}/relationships/organization-memberships`, memberships(invitedId)), 204);
      shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.body.data.attributes['users-count'], 1);
      assertError(await user.api.get(`/teams/${team.id}`), 404);

      const other = await createOrganization(ctx);
      const foreign = (await other.owner.api.get(`/organizations/${other.name}/organization-memberships`)).body.data[0].id;
      const rejected = await org.owner.api.post(`/teams/${team.id}/relationships/organization-memberships`, memberships(foreign));
      assert.equal(assertError(rejected, 422).source?.pointer, '/data/0/id');
    });

    it('removing the last active member of owners is 403, by username and by membership id', async () => {
      const org = await createOrganization(ctx);
      const ownerMembership = (await org.owner.api.get(`/teams/${org.ownersTeamId}`)).body.data.relationships['organization-memberships'].data[0].id;
      assertError(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, users(org.owner.username)), 403);
      assertError(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/organization-memberships`, memberships(ownerMembership)), 403);
      const second = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, second.username);
      // Removing both at once would leave nobody.
      assertError(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, users(org.owner.username, second.username)), 403);
      assertStatus(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, users(org.owner.username)), 204);
      const owners = await second.api.get(`/teams/${org.ownersTeamId}`);
      assert.deepEqual(owners.body.data.relationships.users.data, [{ id: second.id, type: 'users' }]);
      assertError(await second.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, users(second.username)), 403);
    });

    it('manage-membership reaches visible teams only; plain members get 404', async () => {
      const org = await createOrganization(ctx);
      const manager = await addMember(ctx, org);
      const target = await addMember(ctx, org);
      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true } });
      await addToTeam(org, managers.id, manager.username);
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const secret = await createTeam(ctx, org);

      assertError(await target.api.post(`/teams/${visible.id}/relationships/users`, users(target.username)), 404);
      assertStatus(await manager.api.post(`/teams/${visible.id}/relationships/users`, users(target.username)), 204);
      assertError(await manager.api.post(`/teams/${secret.id}/relationships/users`, users(target.username)), 404);
      assertError(await manager.api.post(`/teams/${org.ownersTeamId}/relationships/users`, users(manager.username)), 404);
      const teams = await org.owner.api.get(`/teams/${secret.id}`);
      assert.equal(teams.body.data.attributes['users-count'], 0);
      assertError(await org.owner.api.post('/teams/team-doesnotexist1234/relationships/users', users(target.username)), 404);
    });
  });
}
