import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`teams: create, show, update, delete (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('creates a team with the documented defaults', async () => {
      const org = await createOrganization(ctx);
      const created = await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'platform' } } });
      assert.equal(created.status, 200);
      assert.equal(created.headers['content-type'], 'application/vnd.api+json; charset=utf-8');
      const team = created.body.data;
      assert.match(team.id, /^team-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(team.type, 'teams');
      assert.equal(team.attributes.name, 'platform');
      assert.equal(team.attributes.visibility, 'secret');
      assert.equal(team.attributes['allow-member-token-management'], true);
      assert.equal(team.attributes['users-count'], 0);
      assert.equal(Object.keys(team.attributes['organization-access']).length, 16);
      assert.ok(Object.values(team.attributes['organization-access']).every((value) => value === false));
      assert.deepEqual(team.relationships.users, { data: [] });
      assert.deepEqual(team.relationships['authentication-token'], { meta: {} });
      assert.equal(team.links.self, `/api/v2/teams/${team.id}`);
    });

    it('shows, updates only what is sent, deletes with 204 and then 404s', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization', 'organization-access': { 'manage-policies': true } });
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.body.data, team.body.data);

      const patched = await org.owner.api.patch(`/teams/${team.id}`, {
        data: { type: 'teams', attributes: { 'organization-access': { 'manage-vcs-settings': true } } },
      });
      assert.equal(patched.status, 200, patched.text);
      const access = patched.body.data.attributes['organization-access'];
      assert.equal(access['manage-policies'], true, 'a key not sent keeps its value');
      assert.equal(access['manage-vcs-settings'], true);
      assert.equal(patched.body.data.attributes.visibility, 'organization');
      assert.equal(patched.body.data.attributes.name, team.name);

      const deleted = await org.owner.api.delete(`/teams/${team.id}`, undefined, { 'content-type': 'application/vnd.api+json' });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assert.equal((await org.owner.api.get(`/teams/${team.id}`)).status, 404);
    });

    it('answers 404 for PATCH or DELETE of an unknown team before looking at the body', async () => {
      const org = await createOrganization(ctx);
      const patched = await org.owner.api.patch('/teams/team-doesnotexist1234', { nonsense: true });
      assert.equal(patched.status, 404);
      assert.equal(patched.body.errors[0].title, 'not found');
      assert.equal((await org.owner.api.delete('/teams/team-doesnotexist1234')).status, 404);
      // Not even parsed: an unparseable body would be a 422, but the unknown team comes first.
      const unparseable = await org.owner.api.patch('/teams/team-doesnotexist1234', '{"data": {');
      assert.equal(unparseable.status, 404);
      assert.equal(unparseable.body.errors[0].title, 'not found');
      // For a team that exists, the same body is the 422 it always was.
      const team = await createTeam(ctx, org);
      assert.equal((await org.owner.api.patch(`/teams/${team.id}`, '{"data": {')).status, 422);
    });

    it('accepts allow-team-token-management as an alias and echoes allow-member-token-management', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { 'allow-team-token-management': false });
      assert.equal(team.body.data.attributes['allow-member-token-management'], false);
      const patched = await org.owner.api.patch(`/teams/${team.id}`, {
        data: { type: 'teams', attributes: { 'allow-member-token-management': true } },
      });
      assert.equal(patched.body.data.attributes['allow-member-token-management'], true);
    });
  });
}
