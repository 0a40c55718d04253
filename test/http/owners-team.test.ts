import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { ORGANIZATION_ACCESS_KEYS } from '../../src/access/organization-access.js';

for (const dialect of testDialects()) {
  describe(`the owners team (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('exists with every organization: secret, all access true, can-destroy false', async () => {
      const org = await createOrganization(ctx);
      const shown = await org.owner.api.get(`/teams/${org.ownersTeamId}`);
      assertStatus(shown, 200);
      const attributes = shown.body.data.attributes;
      assert.equal(attributes.name, 'owners');
      assert.equal(attributes.visibility, 'secret');
      assert.deepEqual(attributes['organization-access'], Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, true])));
      assert.equal(attributes.permissions['can-destroy'], false);
      assert.equal(attributes.permissions['can-update-name'], false);
      assert.equal(attributes.permissions['can-update-organization-access'], false);
      assert.equal(attributes.permissions['can-update-membership'], true);
    });

    it('cannot be deleted (422) and is still there', async () => {
      const org = await createOrganization(ctx);
      assertError(await org.owner.api.delete(`/teams/${org.ownersTeamId}`), 422, /owners team cannot be deleted/);
      assertStatus(await org.owner.api.get(`/teams/${org.ownersTeamId}`), 200);
    });

    it('cannot be renamed (422 on the name), not even in another case', async () => {
      const org = await createOrganization(ctx);
      for (const name of ['admins', 'Owners']) {
        const response = await org.owner.api.patch(`/teams/${org.ownersTeamId}`, { data: { type: 'teams', attributes: { name } } });
        assert.equal(assertError(response, 422).source?.pointer, '/data/attributes/name');
      }
      assert.equal((await org.owner.api.get(`/teams/${org.ownersTeamId}`)).body.data.attributes.name, 'owners');
      // Sending the current name is no rename.
      assertStatus(await org.owner.api.patch(`/teams/${org.ownersTeamId}`, { data: { type: 'teams', attributes: { name: 'owners' } } }), 200);
    });

    it('its organization access cannot be changed (422 with the pointer of the key)', async () => {
      const org = await createOrganization(ctx);
      for (const key of ORGANIZATION_ACCESS_KEYS) {
        const response = await org.owner.api.patch(`/teams/${org.ownersTeamId}`, {
          data: { type: 'teams', attributes: { 'organization-access': { [key]: false } } },
        });
        assert.equal(assertError(response, 422).source?.pointer, `/data/attributes/organization-access/${key}`, key);
      }
      const shown = await org.owner.api.get(`/teams/${org.ownersTeamId}`);
      assert.ok(Object.values(shown.body.data.attributes['organization-access']).every((value) => value === true));
    });

    it('no other team may be called owners', async () => {
      const org = await createOrganization(ctx);
      const response = await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'OWNERS' } } });
      assert.equal(assertError(response, 422, /already been taken/).source?.pointer, '/data/attributes/name');
    });
  });
}
