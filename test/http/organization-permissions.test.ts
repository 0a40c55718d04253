import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, siteAdmin, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const subscription = (featureSetId: string) => ({
  data: { type: 'subscriptions', relationships: { 'feature-set': { data: { id: featureSetId, type: 'feature-sets' } } } },
});

/**
 * The organization's `permissions` (HCP's keys `can-manage-users`, `can-update-sentinel`, `can-read-run-tasks`,
 * `can-manage-auditing`)
 * and each membership's `permissions.can-destroy` say exactly what the endpoints then allow: each check below
 * reads the permission and then tries the action.
 */
for (const dialect of testDialects()) {
  describe(`organization and membership permissions (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath() });
    });
    after(() => ctx.close());

    /** A member of a new team holding exactly these organization-access keys. */
    async function memberWith(org: TestOrganization, access: Record<string, boolean>): Promise<TestUser> {
      const team = await createTeam(ctx, org, { 'organization-access': access });
      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      return member;
    }
    const permissionsOf = async (user: { api: TestUser['api'] }, org: TestOrganization) => {
      const shown = await user.api.get(`/organizations/${org.name}`);
      assertStatus(shown, 200);
      return shown.body.data.attributes.permissions as Record<string, boolean>;
    };
    const invite = (user: TestUser, org: TestOrganization, email: string) =>
      user.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email } },
      });
    const policy = (name: string) => ({
      data: { type: 'policies', attributes: { name, kind: 'opa', query: 'data.terraform.deny', 'enforcement-level': 'advisory' } },
    });

    it('can-manage-users: owners and manage-membership; each may then invite, the others get 404', async () => {
      const org = await createOrganization(ctx);
      const membershipManager = await memberWith(org, { 'manage-membership': true });
      const plain = await memberWith(org, { 'read-workspaces': true });

      assert.equal((await permissionsOf(org.owner, org))['can-manage-users'], true);
      assert.equal((await permissionsOf(membershipManager, org))['can-manage-users'], true);
      assert.equal((await permissionsOf(plain, org))['can-manage-users'], false);

      assertStatus(await invite(membershipManager, org, `invited-${Date.now()}@example.test`), 201);
      assertError(await invite(plain, org, `refused-${Date.now()}@example.test`), 404);
    });

    it('can-update-sentinel: owners and manage-policies on an edition with policies; each may then create a policy', async () => {
      const org = await createOrganization(ctx);
      const policyManager = await memberWith(org, { 'manage-policies': true });
      const plain = await memberWith(org, { 'manage-run-tasks': true });

      assert.equal((await permissionsOf(org.owner, org))['can-update-sentinel'], true);
      assert.equal((await permissionsOf(policyManager, org))['can-update-sentinel'], true);
      assert.equal((await permissionsOf(plain, org))['can-update-sentinel'], false);
      assertStatus(await policyManager.api.post(`/organizations/${org.name}/policies`, policy('by-manager')), 201);
      assertError(await plain.api.post(`/organizations/${org.name}/policies`, policy('by-plain')), 403);

      // Free has no policies: nobody may write them, owners included, and the permission says so.
      assertStatus(await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, subscription('fs-free')), 201);
      assert.equal((await permissionsOf(org.owner, org))['can-update-sentinel'], false);
      assertError(await org.owner.api.post(`/organizations/${org.name}/policies`, policy('on-free')), 403);
    });

    it('can-read-run-tasks for every member; can-manage-run-tasks only with the right; can-create-team follows the edition', async () => {
      const org = await createOrganization(ctx);
      const plain = await memberWith(org, {});
      const plainPermissions = await permissionsOf(plain, org);
      assert.equal(plainPermissions['can-read-run-tasks'], true);
      assert.equal(plainPermissions['can-manage-run-tasks'], false);
      assert.equal(plainPermissions['can-update'], false);
      assert.equal((await permissionsOf(org.owner, org))['can-create-team'], true);

      assertStatus(await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, subscription('fs-free')), 201);
      assert.equal((await permissionsOf(org.owner, org))['can-create-team'], false);
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'on-free' } } }), 404);
    });

    it('can-manage-auditing: owners only, who may then make the audit trail token; anyone else gets 404', async () => {
      const org = await createOrganization(ctx);
      const manager = await memberWith(org, { 'manage-membership': true, 'manage-teams': true, 'manage-organization-access': true });
      assert.equal((await permissionsOf(org.owner, org))['can-manage-auditing'], true);
      assert.equal((await permissionsOf(manager, org))['can-manage-auditing'], false);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`), 201);
      assertError(await manager.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`), 404);
    });

    it("a membership's can-destroy: false for an owner's membership unless the caller owns the organization; the removal agrees", async () => {
      const org = await createOrganization(ctx);
      const membershipManager = await memberWith(org, { 'manage-membership': true });
      const plain = await memberWith(org, { 'read-workspaces': true });
      const secondOwner = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, secondOwner.username);
      const someone = await addMember(ctx, org);

      const listed = async (user: TestUser) => {
        const list = await user.api.get(`/organizations/${org.name}/organization-memberships?page[size]=100`);
        assertStatus(list, 200);
        return new Map((list.body.data as any[]).map((m) => [m.id as string, m.attributes.permissions['can-destroy'] as boolean]));
      };
      const byManager = await listed(membershipManager);
      assert.equal(byManager.get(secondOwner.membershipId), false);
      assert.equal(byManager.get(someone.membershipId), true);
      const byOwner = await listed(org.owner);
      assert.equal(byOwner.get(secondOwner.membershipId), true);
      const byPlain = await listed(plain);
      assert.equal(byPlain.get(someone.membershipId), false);

      // The same answer on show, and in a team's included memberships.
      const shown = await membershipManager.api.get(`/organization-memberships/${secondOwner.membershipId}`);
      assert.equal(shown.body.data.attributes.permissions['can-destroy'], false);
      const team = await org.owner.api.get(`/teams/${org.ownersTeamId}?include=organization-memberships`);
      const included = (team.body.included as any[]).find((resource) => resource.id === secondOwner.membershipId);
      assert.equal(included.attributes.permissions['can-destroy'], true);

      assertError(await membershipManager.api.delete(`/organization-memberships/${secondOwner.membershipId}`), 403);
      assertError(await plain.api.delete(`/organization-memberships/${someone.membershipId}`), 404);
      assertStatus(await membershipManager.api.delete(`/organization-memberships/${someone.membershipId}`), 204);
    });
  });
}
