import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, siteAdmin, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { organizationToken } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** Issue 14, item 4: only owners may remove an owner, by any path. */
for (const dialect of testDialects()) {
  describe(`only owners remove an owner, by any path (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    /** An organization with a second owner and a member holding every right a non-owner can hold over members. */
    async function organizationWithManager(): Promise<{ org: TestOrganization; second: TestUser & { membershipId: string }; manager: TestUser & { membershipId: string } }> {
      const org = await createOrganization(ctx);
      const second = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, second.username);
      const manager = await addMember(ctx, org);
      const managers = await createTeam(ctx, org, {
        'organization-access': { 'manage-membership': true, 'manage-teams': true, 'manage-organization-access': true, 'access-secret-teams': true },
      });
      await addToTeam(org, managers.id, manager.username);
      return { org, second, manager };
    }

    async function ownerIds(org: TestOrganization): Promise<string[]> {
      const owners = await org.owner.api.get(`/teams/${org.ownersTeamId}`);
      assertStatus(owners, 200);
      return owners.body.data.relationships.users.data.map((user: any) => user.id).sort();
    }

    it('a manage-membership holder deleting an owner\'s organization membership gets 403 and nothing changes', async () => {
      const { org, second, manager } = await organizationWithManager();
      const before = await ownerIds(org);
      assert.deepEqual(before, [org.owner.id, second.id].sort());

      assertError(await manager.api.delete(`/organization-memberships/${second.membershipId}`), 403, /owner/);
      assertStatus(await org.owner.api.get(`/organization-memberships/${second.membershipId}`), 200);
      assert.deepEqual(await ownerIds(org), before);
      // The second owner still acts as an owner.
      assertStatus(await second.api.get(`/teams/${org.ownersTeamId}`), 200);

      // The first owner's membership, by the same path: refused too.
      const first = (await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(org.owner.email)}`)).body.data[0];
      assertError(await manager.api.delete(`/organization-memberships/${first.id}`), 403, /owner/);
      assert.deepEqual(await ownerIds(org), before);
    });

    it('the same holder still removes people who are not owners', async () => {
      const { org, manager } = await organizationWithManager();
      const member = await addMember(ctx, org);
      assertStatus(await manager.api.delete(`/organization-memberships/${member.membershipId}`), 204);
      assertError(await org.owner.api.get(`/organization-memberships/${member.membershipId}`), 404);
    });

    it('an invitation into the owners team is the owners\' to withdraw', async () => {
      const { org, manager } = await organizationWithManager();
      const invitee = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: {
          type: 'organization-memberships',
          attributes: { email: invitee.email },
          relationships: { teams: { data: [{ type: 'teams', id: org.ownersTeamId }] } },
        },
      });
      assertStatus(invited, 201);
      assertError(await manager.api.delete(`/organization-memberships/${invited.body.data.id}`), 403, /owner/);
      assertStatus(await invitee.api.post(`/organization-memberships/${invited.body.data.id}/actions/accept`), 200);
      assert.ok((await ownerIds(org)).includes(invitee.id));
    });

    it('removing an owner through the owners team\'s relationships is refused to non-owners as well', async () => {
      const { org, second, manager } = await organizationWithManager();
      const before = await ownerIds(org);
      const byUser = await manager.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: second.username }] });
      assertError(byUser, 404, /team not found/); // the owners team is not the manager's to see (the access table)
      const byMembership = await manager.api.delete(`/teams/${org.ownersTeamId}/relationships/organization-memberships`, {
        data: [{ type: 'organization-memberships', id: second.membershipId }],
      });
      assertError(byMembership, 404, /team not found/);
      assert.deepEqual(await ownerIds(org), before);
    });

    it('owners, the organization token and the site admin remove an owner while another remains; never the last one', async () => {
      const { org, second } = await organizationWithManager();
      assertStatus(await org.owner.api.delete(`/organization-memberships/${second.membershipId}`), 204);
      assert.deepEqual(await ownerIds(org), [org.owner.id]);

      const third = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, third.username);
      const asOrganization = await organizationToken(ctx, org);
      assertStatus(await asOrganization.delete(`/organization-memberships/${third.membershipId}`), 204);

      const fourth = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, fourth.username);
      assertStatus(await siteAdmin(ctx).delete(`/organization-memberships/${fourth.membershipId}`), 204);

      const last = (await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(org.owner.email)}`)).body.data[0];
      assertError(await org.owner.api.delete(`/organization-memberships/${last.id}`), 403, /last/);
      assert.deepEqual(await ownerIds(org), [org.owner.id]);
    });
  });
}
