import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes } });

for (const dialect of testDialects()) {
  describe(`team attributes: names, sso-team-id, visibility (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    it('the name rule over HTTP: 1..255 letters, digits, - and _; 422 on the name pointer otherwise', async () => {
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/teams`, teamBody({ name: 'N'.repeat(255) })), 200);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/teams`, teamBody({ name: '_-9' })), 200);
      for (const name of ['', 'N'.repeat(256), 'has space', 'dot.ted', 'ünïcode', 'slash/y']) {
        const response = await org.owner.api.post(`/organizations/${org.name}/teams`, teamBody({ name }));
        assert.equal(assertError(response, 422).source?.pointer, '/data/attributes/name', JSON.stringify(name));
      }
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, teamBody({})), 422);
      const team = await createTeam(ctx, org);
      const renamed = await org.owner.api.patch(`/teams/${team.id}`, teamBody({ name: 'bad name' }));
      assert.equal(assertError(renamed, 422).source?.pointer, '/data/attributes/name');
    });

    it('names are unique ignoring case, on create and on rename; a team may change the case of its own name', async () => {
      const team = await createTeam(ctx, org, { name: 'Platform' });
      const duplicate = await org.owner.api.post(`/organizations/${org.name}/teams`, teamBody({ name: 'pLATFORM' }));
      assert.equal(assertError(duplicate, 422, /^Name has already been taken$/).source?.pointer, '/data/attributes/name');
      const other = await createTeam(ctx, org, { name: 'Other' });
      const clash = await org.owner.api.patch(`/teams/${other.id}`, teamBody({ name: 'PLATFORM' }));
      assert.equal(assertError(clash, 422, /^Name has already been taken$/).source?.pointer, '/data/attributes/name');
      const recased = await org.owner.api.patch(`/teams/${team.id}`, teamBody({ name: 'PLATFORM' }));
      assertStatus(recased, 200);
      assert.equal(recased.body.data.attributes.name, 'PLATFORM');
      // The same name in another organization is fine.
      const elsewhere = await createOrganization(ctx);
      assertStatus(await elsewhere.owner.api.post(`/organizations/${elsewhere.name}/teams`, teamBody({ name: 'platform' })), 200);
    });

    it('sso-team-id and visibility: set on create, changed and cleared on update, validated', async () => {
      const team = await createTeam(ctx, org, { 'sso-team-id': 'cn=platform', visibility: 'organization' });
      assert.equal(team.body.data.attributes['sso-team-id'], 'cn=platform');
      assert.equal(team.body.data.attributes.visibility, 'organization');
      const cleared = await org.owner.api.patch(`/teams/${team.id}`, teamBody({ 'sso-team-id': null, visibility: 'secret' }));
      assertStatus(cleared, 200);
      assert.equal(cleared.body.data.attributes['sso-team-id'], null);
      assert.equal(cleared.body.data.attributes.visibility, 'secret');
      const kept = await org.owner.api.patch(`/teams/${team.id}`, teamBody({}));
      assertStatus(kept, 200);
      assert.deepEqual(kept.body.data, cleared.body.data, 'an empty PATCH changes nothing');
      for (const visibility of ['public', 'Secret', '']) {
        const response = await org.owner.api.patch(`/teams/${team.id}`, teamBody({ visibility }));
        assert.equal(assertError(response, 422).source?.pointer, '/data/attributes/visibility');
      }
      assert.equal(assertError(await org.owner.api.patch(`/teams/${team.id}`, teamBody({ 'sso-team-id': 5 })), 422).source?.pointer, '/data/attributes/sso-team-id');
      assertError(await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'workspaces', attributes: {} } }), 422);
    });

    it('401 on every team endpoint without a valid token', async () => {
      const team = await createTeam(ctx, org);
      const anonymous = org.owner.api.as(undefined);
      assertError(await anonymous.get(`/organizations/${org.name}/teams`), 401);
      assertError(await anonymous.get(`/teams/${team.id}`), 401);
      assertError(await anonymous.post(`/organizations/${org.name}/teams`, teamBody({ name: 'x' })), 401);
      assertError(await anonymous.patch(`/teams/${team.id}`, teamBody({ name: 'x' })), 401);
      assertError(await anonymous.delete(`/teams/${team.id}`), 401);
      assertError(await org.owner.api.as('not-a-token').get(`/teams/${team.id}`), 401);
      assertStatus(await org.owner.api.get(`/teams/${team.id}`), 200);
    });
  });
}
