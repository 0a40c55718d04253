import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { anonymous, createOrganization, createTeam, createUser, siteAdmin } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const dialect of testDialects()) {
  describe(`wire conventions (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('GET /api/v2/ping: 204 without a token, with the TFP headers, X-TFE-Version and X-RateLimit-Limit', async () => {
      const ping = await anonymous(ctx).get('/api/v2/ping');
      assert.equal(ping.status, 204);
      assert.equal(ping.text, '');
      assert.equal(ping.headers['tfp-api-version'], '2.6');
      assert.equal(ping.headers['tfp-appname'], 'Teamstage');
      // A Terraform Enterprise release (vYYYYMM-N): the tfe provider gates workspace task stages on it.
      assert.equal(ping.headers['x-tfe-version'], 'v202507-1');
      assert.notEqual(ping.headers['x-ratelimit-limit'], undefined);
    });

    it('GET /.well-known/terraform.json is the service discovery document', async () => {
      const discovery = await anonymous(ctx).get('/.well-known/terraform.json');
      assertStatus(discovery, 200);
      assert.deepEqual(discovery.body, { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' });
    });

    it('timestamps are UTC ending in Z', async () => {
      const org = await createOrganization(ctx);
      const shownOrg = await org.owner.api.get(`/organizations/${org.name}`);
      assert.match(shownOrg.body.data.attributes['created-at'], ISO_Z);
      const me = await org.owner.api.get('/account/details');
      assert.match(me.body.data.attributes['created-at'], ISO_Z);
      const team = await createTeam(ctx, org);
      const token = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'z', 'expired-at': '2099-01-02T03:04:05+02:00' } },
      });
      assert.match(token.body.data.attributes['created-at'], ISO_Z);
      assert.equal(token.body.data.attributes['expired-at'], '2099-01-02T01:04:05.000Z', 'an offset is normalised to Z');
      const memberships = await org.owner.api.get(`/organizations/${org.name}/organization-memberships`);
      assert.match(memberships.body.data[0].attributes['created-at'], ISO_Z);
    });

    it('bodies over 1 MiB get 413; just under is processed normally', async () => {
      const org = await createOrganization(ctx);
      const huge = JSON.stringify({ data: { type: 'teams', attributes: { name: 'big', padding: 'x'.repeat(1024 * 1024) } } });
      const tooLarge = await org.owner.api.post(`/organizations/${org.name}/teams`, huge);
      assertError(tooLarge, 413);
      const fits = JSON.stringify({ data: { type: 'teams', attributes: { name: 'big', padding: 'x'.repeat(1000 * 1000) } } });
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/teams`, fits), 200);
    });

    it('accepts application/json too, ignores unknown attributes, and answers 422 for unparseable JSON and 415 for other types', async () => {
      const org = await createOrganization(ctx);
      const asJson = await org.owner.api.post(
        `/organizations/${org.name}/teams`,
        JSON.stringify({ data: { type: 'teams', attributes: { name: 'plain-json', 'not-an-attribute': 5 } } }),
        { 'content-type': 'application/json' },
      );
      assertStatus(asJson, 200);
      assert.equal(asJson.body.data.attributes['not-an-attribute'], undefined);
      assert.equal(asJson.headers['content-type'], 'application/vnd.api+json; charset=utf-8');
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, '{"data": {'), 422, /not valid JSON/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    });

    it('unknown routes answer a JSON:API 404, bad tokens a JSON:API 401', async () => {
      const user = await createUser(ctx);
      assertError(await user.api.get('/no-such-thing'), 404);
      assertError(await anonymous(ctx).get('/organizations'), 401);
    });

    it('/healthz, /readyz and /metrics answer without a token', async () => {
      const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.equal(health.json().status, 'ok');
      const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().status, 'ready');
      await siteAdmin(ctx).get('/admin/users');
      const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(metrics.statusCode, 200);
      assert.match(String(metrics.headers['content-type']), /^text\/plain/);
      assert.match(metrics.body, /teamstage_http_requests_total\{method="GET",route="\/api\/v2\/admin\/users",status="200"\} \d+/);
      assert.match(metrics.body, /teamstage_http_request_duration_seconds_bucket/);
    });

    it('/readyz is 503 when the database is unreachable', async () => {
      const isolated = await createTestApp(dialect);
      try {
        // Swap in a query that fails the way a lost connection does, without tearing the pool down.
        const original = isolated.handle.db.getExecutor().executeQuery.bind(isolated.handle.db.getExecutor());
        const executor = isolated.handle.db.getExecutor() as { executeQuery: unknown };
        executor.executeQuery = async () => {
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        };
        const ready = await isolated.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503, ready.body);
        assert.equal(ready.json().errors[0].title, 'service unavailable');
        executor.executeQuery = original;
        assert.equal((await isolated.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      } finally {
        await isolated.close();
      }
    });

    it('/api/docs is an OpenAPI document of the API, generated from the route schemas', async () => {
      const docs = await anonymous(ctx).get('/api/docs');
      assertStatus(docs, 200);
      assert.match(docs.body.openapi, /^3\./);
      assert.equal(docs.body.info.title, 'Teamstage API');
      const paths = Object.keys(docs.body.paths);
      for (const path of ['/api/v2/organizations/{organization_name}/teams', '/api/v2/teams/{team_id}', '/api/v2/teams/{team_id}/relationships/users']) {
        assert.ok(paths.includes(path), path);
      }
      const create = docs.body.paths['/api/v2/organizations/{organization_name}/teams'].post;
      const schema = create.requestBody.content['application/json'].schema;
      assert.ok(schema.properties.data.properties.attributes.properties['organization-access'], 'the body schema is documented');
    });
  });
}
