import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** Every operation of the OpenAPI document whose path names a resource by id (`/teams/{team_id}`, …). */
async function operationsWithIds(ctx: TestContext): Promise<Array<{ method: string; path: string }>> {
  const docs = await ctx.app.inject({ method: 'GET', url: '/api/docs' });
  const paths = (docs.json() as { paths: Record<string, Record<string, unknown>> }).paths;
  return Object.entries(paths).flatMap(([path, operations]) =>
    path.includes('{') ? Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })) : [],
  );
}

for (const dialect of testDialects()) {
  describe(`an unknown id is 404 before the body is read, on every route with an id (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('walks every operation of the OpenAPI document with an unknown id and a broken body', async () => {
      const operations = await operationsWithIds(ctx);
      // The document names them all; a walk over a handful would prove little.
      assert.ok(operations.length >= 40, `only ${operations.length} operations with an id in the OpenAPI document`);
      const wrong: string[] = [];
      for (const { method, path } of operations) {
        const url = `/api/v2${path.replace(/^\/api\/v2/, '')}`.replace(/\{[^}]+\}/g, 'unknown-1234567890abcdef');
        const response = await ctx.app.inject({
          method: method as 'GET',
          url,
          headers: { authorization: `Bearer ${ctx.siteToken}`, 'content-type': 'application/vnd.api+json' },
          // GET and HEAD send no body.
          ...(method === 'GET' || method === 'HEAD' ? {} : { payload: '{"data":' }),
        });
        if (response.statusCode !== 404) wrong.push(`${method} ${path}: ${response.statusCode} ${response.body.slice(0, 120)}`);
        else assert.equal(response.json().errors[0].title, 'not found', `${method} ${path}`);
      }
      assert.deepEqual(wrong, []);
    });
  });
}
