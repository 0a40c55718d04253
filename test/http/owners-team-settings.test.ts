/**
 * Issue 14 item 8: only owners may change the owners team. A `manage-teams` holder who can
 * see it (with `access-secret-teams`) is refused with 403, since they can see it, for every setting, and
 * nothing changes; owners still can.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes } });

const SETTINGS: Array<Record<string, unknown>> = [
  { 'sso-team-id': 'cn=attacker' },
  { visibility: 'organization' },
  { 'allow-member-token-management': false },
  { 'allow-team-token-management': false },
  { name: 'not-owners' },
  { 'sso-team-id': 'cn=attacker', visibility: 'organization', 'allow-member-token-management': false },
];

for (const dialect of testDialects()) {
  describe(`only owners change the owners team's settings (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let manager: TestUser;
    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
      manager = await addMember(ctx, org);
      const managers = await createTeam(ctx, org, {
        'organization-access': { 'manage-teams': true, 'manage-membership': true, 'access-secret-teams': true },
      });
      await addToTeam(org, managers.id, manager.username);
    });
    after(() => ctx.close());

    it('a manage-teams holder who sees the owners team gets 403 for each setting, and nothing changes', async () => {
      const before = (await org.owner.api.get(`/teams/${org.ownersTeamId}`)).body.data;
      const shown = await manager.api.get(`/teams/${org.ownersTeamId}`);
      assertStatus(shown, 200);
      const permissions = shown.body.data.attributes.permissions;
      assert.equal(permissions['can-update-visibility'], false);
      assert.equal(permissions['can-update-sso-team-id'], false);
      assert.equal(permissions['can-update-member-token-management'], false);
      assert.equal(permissions['can-update-name'], false);
      for (const attributes of SETTINGS) {
        assertError(await manager.api.patch(`/teams/${org.ownersTeamId}`, teamBody(attributes)), 403, /only owners/);
      }
      const after = (await org.owner.api.get(`/teams/${org.ownersTeamId}`)).body.data;
      assert.deepEqual(after.attributes, before.attributes, 'the owners team is unchanged');
    });

    it('the same holder still changes the settings of other secret teams', async () => {
      const other = await createTeam(ctx, org);
      const changed = await manager.api.patch(`/teams/${other.id}`, teamBody({ 'sso-team-id': 'cn=ok', 'allow-member-token-management': false }));
      assertStatus(changed, 200);
      assert.equal(changed.body.data.attributes['sso-team-id'], 'cn=ok');
      assert.equal(changed.body.data.attributes.permissions['can-update-sso-team-id'], true);
    });

    it('a member who cannot see the owners team still gets 404', async () => {
      const plain = await addMember(ctx, org);
      assertError(await plain.api.patch(`/teams/${org.ownersTeamId}`, teamBody({ 'sso-team-id': 'cn=x' })), 404);
    });

    it('owners change its sso-team-id, visibility and token setting', async () => {
      const changed = await org.owner.api.patch(
        `/teams/${org.ownersTeamId}`,
        teamBody({ 'sso-team-id': 'cn=owners', visibility: 'organization', 'allow-member-token-management': false }),
      );
      assertStatus(changed, 200);
      assert.equal(changed.body.data.attributes['sso-team-id'], 'cn=owners');
      assert.equal(changed.body.data.attributes.visibility, 'organization');
      assert.equal(changed.body.data.attributes['allow-member-token-management'], false);
      assert.equal(changed.body.data.attributes.permissions['can-update-visibility'], true);
      assertStatus(await org.owner.api.patch(`/teams/${org.ownersTeamId}`, teamBody({ visibility: 'secret', 'allow-member-token-management': true })), 200);
    });
  });
}
