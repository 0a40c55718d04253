import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, unique, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const invitation = (email: string, teamIds: string[] = []) => ({
  data: {
    type: 'organization-memberships',
    attributes: { email },
    ...(teamIds.length > 0 ? { relationships: { teams: { data: teamIds.map((id) => ({ type: 'teams', id })) } } } : {}),
  },
});

for (const dialect of testDialects()) {
  describe(`organization memberships (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    async function invite(org: TestOrganization, email: string, teamIds: string[] = []) {
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(email, teamIds));
      assertStatus(invited, 201);
      return invited.body.data;
    }

    it('invites (201, invited, ou- id) and the invited user accepts (active)', async () => {
      const org = await createOrganization(ctx);
      const user = await createUser(ctx);
      const membership = await invite(org, user.email.toUpperCase());
      assert.match(membership.id, /^ou-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(membership.type, 'organization-memberships');
      assert.equal(membership.attributes.status, 'invited');
      assert.equal(membership.relationships.user.data.id, user.id);
      assert.equal(membership.relationships.organization.data.id, org.name);

      const stranger = await createUser(ctx);
      assertError(await stranger.api.post(`/organization-memberships/${membership.id}/actions/accept`), 404);
      assertError(await org.owner.api.post(`/organization-memberships/${membership.id}/actions/accept`), 404);
      assertError(await user.api.get(`/organizations/${org.name}/teams`), 404, undefined);

      const accepted = await user.api.post(`/organization-memberships/${membership.id}/actions/accept`);
      assertStatus(accepted, 200);
      assert.equal(accepted.body.data.attributes.status, 'active');
      assertStatus(await user.api.get(`/organizations/${org.name}/teams`), 200);
      const shown = await org.owner.api.get(`/organization-memberships/${membership.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.status, 'active');
      assert.equal(shown.body.included, undefined);
    });

    it('show with include=user has the user in included (the tfe provider reads the username there); a bad include is 400', async () => {
      const org = await createOrganization(ctx);
      const user = await createUser(ctx);
      const membership = await invite(org, user.email);
      const shown = await org.owner.api.get(`/organization-memberships/${membership.id}?include=user`);
      assertStatus(shown, 200);
      assert.equal(shown.body.included.length, 1);
      assert.equal(shown.body.included[0].type, 'users');
      assert.equal(shown.body.included[0].id, user.id);
      assert.equal(shown.body.included[0].attributes.username, user.username);
      assertError(await org.owner.api.get(`/organization-memberships/${membership.id}?include=bogus`), 400, /include parameter/);
    });

    it('the invitation answers with its user included, exactly as a read with include=user and the list with include=user show it', async () => {
      const org = await createOrganization(ctx);
      const created = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(`${unique('new')}@example.test`));
      assertStatus(created, 201);
      assert.equal(created.body.included.length, 1);
      assert.equal(created.body.included[0].id, created.body.data.relationships.user.data.id);
      const shown = await org.owner.api.get(`/organization-memberships/${created.body.data.id}?include=user`);
      assert.deepEqual(shown.body.data, created.body.data);
      assert.deepEqual(shown.body.included, created.body.included);
      const listed = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?include=user`);
      assert.deepEqual(listed.body.data.find((item: any) => item.id === created.body.data.id), created.body.data);
      assert.deepEqual(listed.body.included.find((item: any) => item.id === created.body.included[0].id), created.body.included[0]);
    });

    it('an email nobody registered yet is invited too; duplicates and bad emails are 422', async () => {
      const org = await createOrganization(ctx);
      const email = `${unique('new')}@example.test`;
      const membership = await invite(org, email);
      assert.equal(membership.attributes.email, email);
      assertError(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(email)), 422);
      assertError(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(org.owner.email)), 422);
      const bad = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation('not an email'));
      assert.equal(assertError(bad, 422).source?.pointer, '/data/attributes/email');
      const other = await createOrganization(ctx);
      const foreignTeam = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(`${unique('x')}@example.test`, [other.ownersTeamId]));
      assert.equal(assertError(foreignTeam, 422).source?.pointer, '/data/relationships/teams/data/0/id');
    });

    it('plain members cannot invite, show others or delete (404); manage-membership can invite', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      const target = await createUser(ctx);
      assertError(await member.api.post(`/organizations/${org.name}/organization-memberships`, invitation(target.email)), 404);
      const ownerMembership = (await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(org.owner.email)}`)).body.data[0];
      assertError(await member.api.delete(`/organization-memberships/${ownerMembership.id}`), 404);

      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true } });
      await addToTeam(org, managers.id, member.username);
      assertStatus(await member.api.post(`/organizations/${org.name}/organization-memberships`, invitation(target.email)), 201);
      const outsider = await createUser(ctx);
      assertError(await outsider.api.get(`/organization-memberships/${ownerMembership.id}`), 404);
      assertError(await outsider.api.get(`/organizations/${org.name}/organization-memberships`), 404);
    });

    it("an invitation's teams must be teams the inviter may manage membership of (422 otherwise, nothing created)", async () => {
      const org = await createOrganization(ctx);
      const manager = await addMember(ctx, org);
      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true } });
      await addToTeam(org, managers.id, manager.username);
      const secret = await createTeam(ctx, org);
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const newcomer = await createUser(ctx);
      for (const teamId of [org.ownersTeamId, secret.id]) {
        const response = await manager.api.post(`/organizations/${org.name}/organization-memberships`, invitation(newcomer.email, [visible.id, teamId]));
        assert.equal(assertError(response, 422).source?.pointer, '/data/relationships/teams/data/1/id');
      }
      const listed = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(newcomer.email)}`);
      assert.deepEqual(listed.body.data, [], 'a rejected invitation creates no membership');
      const invited = await manager.api.post(`/organizations/${org.name}/organization-memberships`, invitation(newcomer.email, [visible.id]));
      assertStatus(invited, 201);
      assertStatus(await newcomer.api.post(`/organization-memberships/${invited.body.data.id}/actions/accept`), 200);
      const owners = await org.owner.api.get(`/teams/${org.ownersTeamId}`);
      assert.ok(!owners.body.data.relationships.users.data.some((u: any) => u.id === newcomer.id), 'the invitee did not become an owner');
      // Owners may invite straight into any team, owners included.
      const second = await createUser(ctx);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(second.email, [org.ownersTeamId, secret.id])), 201);
    });

    it('lists with q, filter[status] and filter[email], paginated', async () => {
      const org = await createOrganization(ctx);
      const tag = unique('zz');
      const active = await addMember(ctx, org, await createUser(ctx, `${tag}active`));
      const invitedUser = await createUser(ctx, `${tag}invited`);
      await invite(org, invitedUser.email);
      const other = await addMember(ctx, org);

      const all = await org.owner.api.get(`/organizations/${org.name}/organization-memberships`);
      assertStatus(all, 200);
      assert.equal(all.body.meta.pagination['total-count'], 4);

      const byQ = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?q=${tag.toUpperCase()}`);
      assert.deepEqual(byQ.body.data.map((m: any) => m.relationships.user.data.id).sort(), [active.id, invitedUser.id].sort());

      const invited = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter%5Bstatus%5D=invited`);
      assert.deepEqual(invited.body.data.map((m: any) => m.relationships.user.data.id), [invitedUser.id]);
      const activeOnly = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[status]=active`);
      assert.equal(activeOnly.body.data.length, 3);
      assert.ok(activeOnly.body.data.every((m: any) => m.attributes.status === 'active'));
      assertError(await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[status]=bogus`), 422);

      const byEmail = await org.owner.api.get(
        `/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(`${active.email},${other.email.toUpperCase()}`)}`,
      );
      assert.deepEqual(byEmail.body.data.map((m: any) => m.relationships.user.data.id).sort(), [active.id, other.id].sort());

      const paged = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?page[size]=3&page[number]=2`);
      assert.equal(paged.body.data.length, 1);
      assert.equal(paged.body.meta.pagination['total-pages'], 2);
      assert.equal(paged.body.meta.pagination['prev-page'], 1);
    });

    it('invited users never appear in team users or users-count, only in its organization-memberships; they join when they accept', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const user = await createUser(ctx);
      const membership = await invite(org, user.email, [team.id]);
      assert.deepEqual(membership.relationships.teams.data, [{ id: team.id, type: 'teams' }]);

      const before = await org.owner.api.get(`/teams/${team.id}?include=users,organization-memberships`);
      assert.equal(before.body.data.attributes['users-count'], 0);
      assert.deepEqual(before.body.data.relationships.users.data, []);
      assert.equal(before.body.data.attributes['non-service-users-count'], 0);
      // HCP lists the invitation in the team's memberships (the tfe provider converges on it), not in users.
      assert.deepEqual(before.body.data.relationships['organization-memberships'].data, [{ id: membership.id, type: 'organization-memberships' }]);
      assert.deepEqual(before.body.included.map((resource: { type: string; id: string }) => [resource.type, resource.id]), [['organization-memberships', membership.id]]);
      assert.equal(before.body.included[0].attributes.status, 'invited');
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=${team.name}`);
      assert.equal(listed.body.data[0].attributes['users-count'], 0);
      assert.deepEqual(listed.body.data[0].relationships['organization-memberships'].data, [{ id: membership.id, type: 'organization-memberships' }]);
      assert.deepEqual(listed.body.data[0].relationships.users.data, []);

      assertStatus(await user.api.post(`/organization-memberships/${membership.id}/actions/accept`), 200);
      const afterAccept = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(afterAccept.body.data.attributes['users-count'], 1);
      assert.deepEqual(afterAccept.body.data.relationships.users.data, [{ id: user.id, type: 'users' }]);
      assert.deepEqual(afterAccept.body.data.relationships['organization-memberships'].data, [{ id: membership.id, type: 'organization-memberships' }]);
    });

    it('deleting a membership leaves every team; the last owner cannot leave (403)', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      const a = await createTeam(ctx, org);
      const b = await createTeam(ctx, org, { visibility: 'organization' });
      await addToTeam(org, a.id, member.username);
      await addToTeam(org, b.id, member.username);
      await addToTeam(org, org.ownersTeamId, member.username);
      const shown = await org.owner.api.get(`/organization-memberships/${member.membershipId}`);
      assert.deepEqual(shown.body.data.relationships.teams.data.map((t: any) => t.id).sort(), [a.id, b.id, org.ownersTeamId].sort());

      assertStatus(await org.owner.api.delete(`/organization-memberships/${member.membershipId}`), 204);
      assertError(await org.owner.api.get(`/organization-memberships/${member.membershipId}`), 404);
      for (const teamId of [a.id, b.id, org.ownersTeamId]) {
        const team = await org.owner.api.get(`/teams/${teamId}`);
        assert.ok(!team.body.data.relationships.users.data.some((u: any) => u.id === member.id), teamId);
      }
      assertError(await member.api.get(`/organizations/${org.name}`), 404);
      const rows = await ctx.handle.db.selectFrom('team_memberships').select('team_id').where('organization_membership_id', '=', member.membershipId).execute();
      assert.deepEqual(rows, []);

      const ownerMembership = (await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=${encodeURIComponent(org.owner.email)}`)).body.data[0];
      assertError(await org.owner.api.delete(`/organization-memberships/${ownerMembership.id}`), 403);
      assertStatus(await org.owner.api.get(`/organizations/${org.name}`), 200);
    });
  });
}
