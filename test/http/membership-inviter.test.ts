import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam, createUser, siteAdmin } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const invitation = (email: string) => ({ data: { type: 'organization-memberships', attributes: { email } } });

/**
 * Who invited a member (issue 38, migration 048): the membership's `invited-by` relationship (Teamstage's; HCP
 * names no inviter), and the invited person's own read of the invitation, which names the organization and
 * includes the inviter's username (never their email) for them alone.
 */
for (const dialect of testDialects()) {
  describe(`the inviter of a membership (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('records who invited; the invited person reads the organization and the inviter, nobody else reads it', async () => {
      const org = await createOrganization(ctx);
      const invitee = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, invitation(invitee.email));
      assertStatus(invited, 201);
      assert.deepEqual(invited.body.data.relationships['invited-by'], { data: { id: org.owner.id, type: 'users' } });
      const id = invited.body.data.id;
      const shown = await org.owner.api.get(`/organization-memberships/${id}`);
      assert.deepEqual(shown.body.data.relationships['invited-by'].data, { id: org.owner.id, type: 'users' });

      const own = await invitee.api.get(`/organization-memberships/${id}/invitation`);
      assertStatus(own, 200);
      assert.equal(own.body.data.id, id);
      assert.equal(own.body.data.attributes.status, 'invited');
      assert.equal(own.body.data.relationships.organization.data.id, org.name);
      assert.deepEqual(own.body.data.relationships['invited-by'].data, { id: org.owner.id, type: 'users' });
      assert.deepEqual(own.body.data.relationships.teams.data, []);
      assert.equal(own.body.included.length, 1);
      assert.equal(own.body.included[0].id, org.owner.id);
      assert.equal(own.body.included[0].attributes.username, org.owner.username);
      assert.equal(own.body.included[0].attributes.email, null, "the inviter's email is not the invitee's to read");

      // Nobody but the invited person reads it there: the owner, a stranger, the site admin: 404.
      const stranger = await createUser(ctx);
      for (const client of [org.owner.api, stranger.api, siteAdmin(ctx)]) assertError(await client.get(`/organization-memberships/${id}/invitation`), 404);
      assertError(await invitee.api.get('/organization-memberships/ou-AAAAAAAAAAAAAAAA/invitation'), 404);

      // Accepted, it still names who invited them.
      assertStatus(await invitee.api.post(`/organization-memberships/${id}/actions/accept`), 200);
      const accepted = await invitee.api.get(`/organization-memberships/${id}/invitation`);
      assert.equal(accepted.body.data.attributes.status, 'active');
      assert.equal(accepted.body.included[0].attributes.username, org.owner.username);
    });

    it("a team token's invitation names its service account; the organization token's and older ones name nobody", async () => {
      const org = await createOrganization(ctx);
      const recruiters = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true } });
      const teamToken = await org.owner.api.post(`/teams/${recruiters.id}/authentication-token`);
      assertStatus(teamToken, 201);
      const byTeam = await new ApiClient(ctx.app, teamToken.body.data.attributes.token).post(
        `/organizations/${org.name}/organization-memberships`,
        invitation((await createUser(ctx)).email),
      );
      assertStatus(byTeam, 201);
      const serviceAccount = byTeam.body.data.relationships['invited-by'].data;
      assert.equal(serviceAccount.type, 'users');
      assert.notEqual(serviceAccount.id, org.owner.id);

      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      const invitee = await createUser(ctx);
      const byOrganization = await new ApiClient(ctx.app, orgToken.body.data.attributes.token).post(
        `/organizations/${org.name}/organization-memberships`,
        invitation(invitee.email),
      );
      assertStatus(byOrganization, 201);
      assert.deepEqual(byOrganization.body.data.relationships['invited-by'], { data: null });
      const own = await invitee.api.get(`/organization-memberships/${byOrganization.body.data.id}/invitation`);
      assertStatus(own, 200);
      assert.deepEqual(own.body.included, []);

      // A membership nobody invited (the organization's creator, as every row from before migration 048) names nobody.
      const listed = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?page[size]=100`);
      assertStatus(listed, 200);
      const creator = listed.body.data.find((membership: { relationships: { user: { data: { id: string } } } }) => membership.relationships.user.data.id === org.owner.id);
      assert.deepEqual(creator.relationships['invited-by'], { data: null });
    });
  });
}
