import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, siteAdmin, unique } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const orgBody = (name: string, email = `ops@${name}.test`) => ({ data: { type: 'organizations', attributes: { name, email } } });

for (const dialect of testDialects()) {
  describe(`organizations and the organization token (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('creating an organization makes an owners team with the creator as its only member', async () => {
      const user = await createUser(ctx);
      const name = unique('Org');
      const created = await user.api.post('/organizations', orgBody(name));
      assertStatus(created, 201);
      assert.equal(created.body.data.type, 'organizations');
      assert.equal(created.body.data.id, name);
      assert.equal(created.body.data.attributes.name, name);
      assert.equal(created.body.data.attributes.email, `ops@${name}.test`);
      assert.match(created.body.data.attributes['created-at'], /Z$/);
      assert.equal(created.body.data.attributes.permissions['can-destroy'], true);

      const teams = await user.api.get(`/organizations/${name}/teams?include=users`);
      assertStatus(teams, 200);
      assert.equal(teams.body.data.length, 1);
      const owners = teams.body.data[0];
      assert.equal(owners.attributes.name, 'owners');
      assert.equal(owners.attributes['users-count'], 1);
      assert.deepEqual(owners.relationships.users.data, [{ id: user.id, type: 'users' }]);
      assert.equal(teams.body.included[0].attributes.username, user.username);

      const memberships = await user.api.get(`/organizations/${name}/organization-memberships`);
      assertStatus(memberships, 200);
      assert.equal(memberships.body.data.length, 1);
      assert.equal(memberships.body.data[0].attributes.status, 'active');
    });

    it('rejects duplicate names (ignoring case) and invalid names or emails with 422', async () => {
      const org = await createOrganization(ctx);
      const other = await createUser(ctx);
      assert.equal(assertError(await other.api.post('/organizations', orgBody(org.name)), 422, /already been taken/).source?.pointer, '/data/attributes/name');
      assert.equal(assertError(await other.api.post('/organizations', orgBody(org.name.toUpperCase())), 422).source?.pointer, '/data/attributes/name');
      assert.equal(assertError(await other.api.post('/organizations', orgBody('bad name')), 422).source?.pointer, '/data/attributes/name');
      assert.equal(assertError(await other.api.post('/organizations', orgBody(unique('ok'), 'nope')), 422).source?.pointer, '/data/attributes/email');
      assertError(await other.api.post('/organizations', { data: { type: 'organizations', attributes: { name: unique('x') } } }), 422);
    });

    it('lists the organizations a user belongs to; the site admin sees all', async () => {
      const first = await createOrganization(ctx);
      const second = await createOrganization(ctx, unique('org'), first.owner);
      const stranger = await createOrganization(ctx);
      const mine = await first.owner.api.get('/organizations');
      assertStatus(mine, 200);
      assert.deepEqual(mine.body.data.map((org: { id: string }) => org.id).sort(), [first.name, second.name].sort());
      assert.equal(mine.body.meta.pagination['total-count'], 2);
      const all = await siteAdmin(ctx).get('/organizations?page[size]=100');
      const names = all.body.data.map((org: { id: string }) => org.id);
      for (const name of [first.name, second.name, stranger.name]) assert.ok(names.includes(name), name);
    });

    it('shows to members, 404 to outsiders and invited users', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      assertStatus(await member.api.get(`/organizations/${org.name}`), 200);
      assert.equal((await member.api.get(`/organizations/${org.name}`)).body.data.attributes.permissions['can-update'], false);
      const outsider = await createUser(ctx);
      assertError(await outsider.api.get(`/organizations/${org.name}`), 404);
      const invited = await createUser(ctx);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: invited.email } },
      }), 201);
      assertError(await invited.api.get(`/organizations/${org.name}`), 404);
      assertError(await org.owner.api.get('/organizations/does-not-exist'), 404);
    });

    it('owners update the email; members get 404; renaming is 422', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      const body = { data: { type: 'organizations', attributes: { email: 'new@example.test' } } };
      assertError(await member.api.patch(`/organizations/${org.name}`, body), 404);
      const updated = await org.owner.api.patch(`/organizations/${org.name}`, body);
      assertStatus(updated, 200);
      assert.equal(updated.body.data.attributes.email, 'new@example.test');
      assert.equal((await org.owner.api.get(`/organizations/${org.name}`)).body.data.attributes.email, 'new@example.test');
      assertError(await org.owner.api.patch(`/organizations/${org.name}`, { data: { type: 'organizations', attributes: { name: 'renamed' } } }), 422);
    });

    it('deleting is for owners and cascades to teams, memberships and tokens', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const teamToken = await org.owner.api.post(`/teams/${team.id}/authentication-token`);
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertError(await member.api.delete(`/organizations/${org.name}`), 404);
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}`), 204);
      assertError(await org.owner.api.get(`/organizations/${org.name}`), 404);
      assertError(await org.owner.api.get(`/teams/${team.id}`), 404);
      assertError(await new ApiClient(ctx.app, teamToken.body.data.attributes.token).get('/account/details'), 401);
      assertError(await new ApiClient(ctx.app, orgToken.body.data.attributes.token).get('/account/details'), 401);
      const left = await ctx.handle.db.selectFrom('organization_memberships').select('id').where('organization_name', '=', org.name).execute();
      assert.deepEqual(left, []);
      // The name is free again.
      assertStatus(await org.owner.api.post('/organizations', orgBody(org.name)), 201);
    });

    it('the organization token: owners only, a new one replaces the old, DELETE revokes', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      assertError(await member.api.post(`/organizations/${org.name}/authentication-token`), 404);
      const first = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(first, 201);
      assert.equal(first.body.data.type, 'authentication-tokens');
      const firstClient = new ApiClient(ctx.app, first.body.data.attributes.token);
      assertStatus(await firstClient.get(`/organizations/${org.name}`), 200);
      const second = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(second, 201);
      assert.notEqual(second.body.data.attributes.token, first.body.data.attributes.token);
      assertError(await firstClient.get(`/organizations/${org.name}`), 401);
      const secondClient = new ApiClient(ctx.app, second.body.data.attributes.token);
      assertStatus(await secondClient.get(`/organizations/${org.name}`), 200);
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/authentication-token`), 204);
      assertError(await secondClient.get(`/organizations/${org.name}`), 401);
    });

    it('the organization token acts as an owner on teams of its organization only', async () => {
      const org = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      const secret = await createTeam(ctx, org);
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      const api = new ApiClient(ctx.app, issued.body.data.attributes.token);

      const listed = await api.get(`/organizations/${org.name}/teams`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((team: { attributes: { name: string } }) => team.attributes.name).sort(), ['owners', secret.name].sort());
      const created = await api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'from-org-token' } } });
      assertStatus(created, 200);
      assert.deepEqual(created.body.data.attributes.permissions['can-destroy'], true);
      const patched = await api.patch(`/teams/${secret.id}`, {
        data: { type: 'teams', attributes: { 'organization-access': { 'manage-policies': true } } },
      });
      assertStatus(patched, 200);
      assert.equal(patched.body.data.attributes['organization-access']['manage-policies'], true);
      const member = await addMember(ctx, org);
      assertStatus(await api.post(`/teams/${secret.id}/relationships/users`, { data: [{ type: 'users', id: member.username }] }), 204);
      assertStatus(await api.delete(`/teams/${created.body.data.id}`), 204);

      assertError(await api.get(`/organizations/${other.name}/teams`), 404);
      assertError(await api.get(`/teams/${other.ownersTeamId}`), 404);
      assertError(await api.post('/organizations', orgBody(unique('neworg'))), 404);
    });

    it('a member added to owners becomes an owner', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      assertError(await member.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'x' } } }), 404);
      await addToTeam(org, org.ownersTeamId, member.username);
      assertStatus(await member.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'x' } } }), 200);
      assert.equal((await member.api.get(`/organizations/${org.name}`)).body.data.attributes.permissions['can-destroy'], true);
    });
  });
}
