import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { anonymous, createUser } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`rate limit: 30 requests per second per principal (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_RATE_LIMIT: '30' });
    });
    after(() => ctx.close());

    it('ping advertises the limit', async () => {
      const ping = await anonymous(ctx).get('/api/v2/ping');
      assert.equal(ping.status, 204);
      assert.equal(ping.headers['x-ratelimit-limit'], '30');
    });

    it('the 31st request within a second is 429 with X-RateLimit-* headers; other principals are unaffected; it recovers', async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const burst = await Promise.all(Array.from({ length: 36 }, () => alice.api.get('/account/details')));
      const ok = burst.filter((response) => response.status === 200);
      const limited = burst.filter((response) => response.status === 429);
      assert.equal(ok.length, 30);
      assert.equal(limited.length, 6);
      assert.equal(ok[0]!.headers['x-ratelimit-limit'], '30');
      assert.ok(ok.some((response) => response.headers['x-ratelimit-remaining'] === '0'));
      const error = assertError(limited[0]!, 429);
      assert.match(error.detail ?? '', /rate limit/);
      assert.equal(limited[0]!.headers['x-ratelimit-limit'], '30');
      const reset = Number(limited[0]!.headers['x-ratelimit-reset']);
      assert.ok(Number.isFinite(reset) && reset >= 0 && reset <= 1, `X-RateLimit-Reset in seconds, got ${limited[0]!.headers['x-ratelimit-reset']}`);

      assert.equal((await bob.api.get('/account/details')).status, 200, 'another principal has its own budget');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await alice.api.get('/account/details')).status, 200, 'the budget refills after a second');
    });
  });
}
