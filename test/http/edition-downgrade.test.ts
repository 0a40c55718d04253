import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, siteAdmin, unique } from '../helpers/fixtures.js';
import { organizationToken, subscribe } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const tokenBody = (description: string) => ({ data: { type: 'authentication-tokens', attributes: { description } } });
const workspaceBody = () => ({ data: { type: 'workspaces', attributes: { name: unique('ws') } } });

/**
 * Issue 14, item 5: while an organization's edition has no teams, its teams other than owners
 * grant nothing and their tokens authenticate nothing; owners, the organization token and the site admin
 * still list, show and delete them and revoke their tokens; an upgrade restores them.
 */
for (const dialect of testDialects()) {
  describe(`a downgrade to Free leaves no right that nobody can revoke (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('a hidden team\'s tokens are 401 and its access grants its members nothing; an upgrade restores both', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { 'organization-access': { 'manage-workspaces': true, 'manage-membership': true } });
      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      const legacy = new ApiClient(ctx.app, (await org.owner.api.post(`/teams/${team.id}/authentication-token`, {})).body.data.attributes.token);
      const multi = new ApiClient(ctx.app, (await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody('ci'))).body.data.attributes.token);
      assertStatus(await legacy.get('/account/details'), 200);
      assertStatus(await multi.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 201);
      assertStatus(await member.api.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 201);

      await subscribe(ctx, org, 'fs-free');
      for (const token of [legacy, multi]) {
        assertError(await token.get('/account/details'), 401);
        assertError(await token.get(`/organizations/${org.name}/teams`), 401);
        assertError(await token.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 401);
      }
      // Still a member of the organization, but the hidden team's rights are gone.
      assertStatus(await member.api.get(`/organizations/${org.name}`), 200);
      assertError(await member.api.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 404);
      assertError(
        await member.api.post(`/organizations/${org.name}/organization-memberships`, {
          data: { type: 'organization-memberships', attributes: { email: `${unique('x')}@example.test` } },
        }),
        404,
      );
      assertError(await member.api.get(`/teams/${team.id}`), 404);

      await subscribe(ctx, org, 'fs-business');
      assertStatus(await legacy.get('/account/details'), 200);
      assertStatus(await multi.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 201);
      assertStatus(await member.api.post(`/organizations/${org.name}/workspaces`, workspaceBody()), 201);
      assertStatus(await member.api.get(`/teams/${team.id}`), 200);
    });

    it('owners list, show, change and delete hidden teams and revoke their tokens; nothing new is granted through them', async () => {
      const org = await createOrganization(ctx);
      const secret = await createTeam(ctx, org, { 'organization-access': { 'manage-workspaces': true } });
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const member = await addMember(ctx, org);
      await addToTeam(org, secret.id, member.username);
      const legacy = await org.owner.api.post(`/teams/${secret.id}/authentication-token`, {});
      const multi = await org.owner.api.post(`/teams/${secret.id}/authentication-tokens`, tokenBody('ci'));
      assertStatus(multi, 201);

      await subscribe(ctx, org, 'fs-free');
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((team: any) => team.id).sort(), [org.ownersTeamId, secret.id, visible.id].sort());
      assert.equal(listed.body.meta.pagination['total-count'], 3);
      const shown = await org.owner.api.get(`/teams/${secret.id}?include=users`);
      assertStatus(shown, 200);
      assert.ok(shown.body.data.relationships.users.data.some((user: any) => user.id === member.id));

      const tokens = await org.owner.api.get(`/teams/${secret.id}/authentication-tokens`);
      assertStatus(tokens, 200);
      assert.equal(tokens.body.data.length, 2);
      assertStatus(await org.owner.api.get(`/authentication-tokens/${multi.body.data.id}`), 200);
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${multi.body.data.id}`), 204);
      assertStatus(await org.owner.api.delete(`/teams/${secret.id}/authentication-token`), 204);
      assertStatus(await org.owner.api.delete(`/teams/${secret.id}/relationships/users`, { data: [{ type: 'users', id: member.username }] }), 204);
      const changed = await org.owner.api.patch(`/teams/${secret.id}`, {
        data: { type: 'teams', attributes: { 'organization-access': { 'manage-workspaces': false } } },
      });
      assertStatus(changed, 200);
      assert.equal(changed.body.data.attributes['organization-access']['manage-workspaces'], false);

      // Nothing that would grant through a team the edition does not have.
      assertError(await org.owner.api.post(`/teams/${secret.id}/authentication-token`, {}), 403, /edition/);
      assertError(await org.owner.api.post(`/teams/${secret.id}/authentication-tokens`, tokenBody('new')), 403, /edition/);
      assertError(await org.owner.api.post(`/teams/${secret.id}/relationships/users`, { data: [{ type: 'users', id: member.username }] }), 403, /edition/);
      assertError(
        await org.owner.api.post(`/teams/${secret.id}/relationships/organization-memberships`, {
          data: [{ type: 'organization-memberships', id: member.membershipId }],
        }),
        403,
        /edition/,
      );
      // Nor an invitation into it: as for any team the inviter may not add members to, a 422 on the team.
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: `${unique('x')}@example.test` }, relationships: { teams: { data: [{ type: 'teams', id: secret.id }] } } },
      });
      assert.equal(assertError(invited, 422).source?.pointer, '/data/relationships/teams/data/0/id');

      assertStatus(await org.owner.api.delete(`/teams/${secret.id}`), 204);
      assertError(await org.owner.api.get(`/teams/${secret.id}`), 404);

      await subscribe(ctx, org, 'fs-business');
      for (const token of [legacy, multi]) assertError(await new ApiClient(ctx.app, token.body.data.attributes.token).get('/account/details'), 401);
    });

    it('the site admin and the organization token do the same', async () => {
      const org = await createOrganization(ctx);
      const first = await createTeam(ctx, org);
      const second = await createTeam(ctx, org);
      const token = await org.owner.api.post(`/teams/${first.id}/authentication-tokens`, tokenBody('ci'));
      const asOrganization = await organizationToken(ctx, org);

      await subscribe(ctx, org, 'fs-free');
      for (const api of [siteAdmin(ctx), asOrganization]) {
        assertStatus(await api.get(`/teams/${first.id}`), 200);
        const listed = await api.get(`/organizations/${org.name}/teams`);
        assert.equal(listed.body.meta.pagination['total-count'], 3);
        assertStatus(await api.get(`/teams/${first.id}/authentication-tokens`), 200);
      }
      assertStatus(await siteAdmin(ctx).delete(`/authentication-tokens/${token.body.data.id}`), 204);
      assertStatus(await siteAdmin(ctx).delete(`/teams/${first.id}`), 204);
      assertStatus(await asOrganization.delete(`/teams/${second.id}`), 204);
      const left = await org.owner.api.get(`/organizations/${org.name}/teams`);
      assert.deepEqual(left.body.data.map((team: any) => team.id), [org.ownersTeamId]);
    });

    it('members who are not owners see none of the hidden teams, by any path', async () => {
      const org = await createOrganization(ctx);
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const managers = await createTeam(ctx, org, {
        visibility: 'organization',
        'organization-access': { 'manage-membership': true, 'manage-teams': true, 'access-secret-teams': true },
      });
      const member = await addMember(ctx, org);
      await addToTeam(org, visible.id, member.username);
      await addToTeam(org, managers.id, member.username);
      const invitee = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: invitee.email }, relationships: { teams: { data: [{ type: 'teams', id: visible.id }] } } },
      });
      assertStatus(invited, 201);

      await subscribe(ctx, org, 'fs-free');
      const accepted = await invitee.api.post(`/organization-memberships/${invited.body.data.id}/actions/accept`);
      assertStatus(accepted, 200);
      assert.deepEqual(accepted.body.data.relationships.teams.data, []);
      for (const id of [visible.id, managers.id, org.ownersTeamId]) assertError(await member.api.get(`/teams/${id}`), 404);
      const listed = await member.api.get(`/organizations/${org.name}/teams`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data, []);
      const memberships = await member.api.get(`/organizations/${org.name}/organization-memberships`);
      assertStatus(memberships, 200);
      for (const membership of memberships.body.data) assert.deepEqual(membership.relationships.teams.data, [], JSON.stringify(membership));
      assertError(await member.api.delete(`/teams/${visible.id}/relationships/users`, { data: [{ type: 'users', id: member.username }] }), 404);
    });
  });
}
