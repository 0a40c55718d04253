/**
 * Issue 39: route schemas are compiled on the first request that needs them, not at start (most of a start's
 * CPU went there), and validate exactly as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createWorkspace } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { LazyValidators } from '../../src/http/lazy-validators.js';
import { LazySerializers } from '../../src/http/lazy-serializers.js';
import { ApiClient } from '../helpers/api-client.js';

describe('lazy route validators (the compiler alone)', () => {
  it("lower-cases a header schema's names, as Fastify does for its own compiler", () => {
    const seen: unknown[] = [];
    const validators = new LazyValidators(() => ((route: { schema: unknown }) => {
      seen.push(route.schema);
      return () => true;
    }) as never);
    const compile = validators.buildValidator({}, {}) as unknown as (route: object) => (data: unknown) => unknown;
    const validate = compile({ schema: { type: 'object', required: ['X-Token'], properties: { 'X-Token': { type: 'string' } } }, httpPart: 'headers' });
    assert.equal(seen.length, 0, 'nothing compiled before the first validation');
    validate({});
    assert.deepEqual(seen, [{ type: 'object', required: ['x-token'], properties: { 'x-token': { type: 'string' } } }]);
  });
});

for (const dialect of testDialects()) {
  describe(`lazy route validators (${dialect})`, () => {
    let ctx: TestContext;
    const validators = new LazyValidators();
    const serializers = new LazySerializers();
    before(async () => {
      ctx = await createTestApp(dialect, {}, { validators, serializers });
    });
    after(() => ctx.close());

    it('a built app has compiled no route schema; a request compiles what its route needs, and validation is unchanged', async () => {
      assert.equal(validators.compiled, 0, 'no schema compiled at start');
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const afterRequests = validators.compiled;
      assert.ok(afterRequests > 0, 'the requests compiled their routes’ schemas');
      // A known attribute of the wrong type is still refused by the schema (a 422, nothing changed)...
      const wrong = await org.owner.api.patch(`/workspaces/${workspace.id}`, { data: { type: 'workspaces', attributes: { 'allow-destroy-plan': 'yes' } } });
      assertError(wrong, 422);
      assert.equal((await org.owner.api.get(`/workspaces/${workspace.id}`)).body.data.attributes['allow-destroy-plan'], true);
      // ...and a route compiles once: the same request again compiles nothing more.
      const compiledOnce = validators.compiled;
      assertError(await org.owner.api.patch(`/workspaces/${workspace.id}`, { data: { type: 'workspaces', attributes: { 'allow-destroy-plan': 'yes' } } }), 422);
      assert.equal(validators.compiled, compiledOnce);
    });

    it('a response schema (the audit trail) is compiled by its first answer, which it still shapes', async () => {
      assert.equal(serializers.compiled, 0, 'no response schema compiled before an answer needed one');
      const org = await createOrganization(ctx);
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assert.equal(issued.status, 201, issued.text);
      const reader = new ApiClient(ctx.app, issued.body.data.attributes.token);
      const answer = await reader.get('/organization/audit-trail');
      assert.equal(answer.status, 200, answer.text);
      assert.ok(Array.isArray(answer.body.data) && answer.body.data.length > 0, answer.text);
      assert.equal(serializers.compiled, 1);
      assert.equal((await reader.get('/organization/audit-trail')).status, 200);
      assert.equal(serializers.compiled, 1, 'compiled once');
    });

    it('every route schema compiles (a broken one would otherwise only show on its first request)', () => {
      validators.compileAll();
      const total = validators.compiled;
      assert.ok(total > 100, `every route's schemas compiled: ${total}`);
      validators.compileAll();
      assert.equal(validators.compiled, total, 'nothing is compiled twice');
    });
  });
}
