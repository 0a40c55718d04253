/**
 * Issue 25 item 9: any user could create any number of organizations (40 in 0.2 s), each a whole tenant.
 * TEAMSTAGE_ORGANIZATION_CREATORS says who may create them, TEAMSTAGE_ORGANIZATIONS_PER_USER how many one
 * user may have created.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, DEFAULT_ORGANIZATIONS_PER_USER, loadConfig } from '../../src/config.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createUser, siteAdmin, unique } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const orgBody = (name = unique('org')) => ({ data: { type: 'organizations', attributes: { name, email: `ops@${name}.test` } } });

describe('organization creation settings', () => {
  it('default to anyone and 10 per user; refuse other values by name', () => {
    assert.deepEqual(loadConfig({}).organizations, { creators: 'anyone', perUser: 10 });
    assert.equal(DEFAULT_ORGANIZATIONS_PER_USER, 10);
    assert.deepEqual(loadConfig({ TEAMSTAGE_ORGANIZATION_CREATORS: 'site-admin', TEAMSTAGE_ORGANIZATIONS_PER_USER: '0' }).organizations, { creators: 'site-admin', perUser: 0 });
    for (const [name, value] of [['TEAMSTAGE_ORGANIZATION_CREATORS', 'admins'], ['TEAMSTAGE_ORGANIZATIONS_PER_USER', '-1'], ['TEAMSTAGE_ORGANIZATIONS_PER_USER', '2.5'], ['TEAMSTAGE_ORGANIZATIONS_PER_USER', 'many']]) {
      assert.throws(() => loadConfig({ [name!]: value }), (error) => error instanceof ConfigError && error.message.includes(name!), `${name}=${value}`);
    }
  });
});

for (const dialect of testDialects()) {
  describe(`organizations per user (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_ORGANIZATIONS_PER_USER: '3' });
    });
    after(() => ctx.close());

    it('a user may have created at most the limit: 422 beyond, nothing created; a deleted one frees its place', async () => {
      const user = await createUser(ctx);
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = await user.api.post('/organizations', orgBody());
        assertStatus(created, 201);
        names.push(created.body.data.id);
      }
      const name = unique('over');
      const refused = await user.api.post('/organizations', orgBody(name));
      assert.equal(assertError(refused, 422, /TEAMSTAGE_ORGANIZATIONS_PER_USER/).source?.pointer, '/data');
      assertError(await siteAdmin(ctx).get(`/organizations/${name}`), 404);
      // Another user has a budget of their own.
      assertStatus(await (await createUser(ctx)).api.post('/organizations', orgBody()), 201);
      // Organizations that exist count: deleting one frees its place.
      assertStatus(await user.api.delete(`/organizations/${names[0]}`), 204);
      assertStatus(await user.api.post('/organizations', orgBody()), 201);
    });

    it('40 concurrent creates by one user: exactly the limit succeed', async () => {
      const user = await createUser(ctx);
      const answers = await Promise.all(Array.from({ length: 40 }, () => user.api.post('/organizations', orgBody())));
      assert.equal(answers.filter((answer) => answer.status === 201).length, 3);
      assert.equal(answers.filter((answer) => answer.status === 422).length, 37, answers.map((answer) => answer.status).join(','));
      assert.equal((await user.api.get('/organizations')).body.data.length, 3);
    });

    it('the site admin is not limited', async () => {
      for (let i = 0; i < 4; i++) assertStatus(await siteAdmin(ctx).post('/organizations', orgBody()), 201);
    });
  });

  describe(`TEAMSTAGE_ORGANIZATION_CREATORS=site-admin (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_ORGANIZATION_CREATORS: 'site-admin' });
    });
    after(() => ctx.close());

    it('a user is refused (403), a token of an organization gets 404 as before, the site admin creates', async () => {
      const user = await createUser(ctx);
      const name = unique('mine');
      assertError(await user.api.post('/organizations', orgBody(name)), 403, /only the site admin/);
      assertError(await siteAdmin(ctx).get(`/organizations/${name}`), 404);
      const created = await siteAdmin(ctx).post('/organizations', orgBody());
      assertStatus(created, 201);
      const orgToken = await siteAdmin(ctx).post(`/organizations/${created.body.data.id}/authentication-token`);
      assertStatus(orgToken, 201);
      assertError(await user.api.as(orgToken.body.data.attributes.token).post('/organizations', orgBody()), 404);
    });
  });

  describe(`TEAMSTAGE_ORGANIZATIONS_PER_USER=0 (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_ORGANIZATIONS_PER_USER: '0' });
    });
    after(() => ctx.close());

    it('means no limit', async () => {
      const user = await createUser(ctx);
      for (let i = 0; i < 12; i++) await createOrganization(ctx, unique('many'), user);
    });
  });
}
