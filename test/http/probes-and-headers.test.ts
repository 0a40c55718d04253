/**
 * Issue 25 item 11: health probes are never rate-limited (a load balancer probing often must not mark a
 * healthy node down), and every answer carries `X-Content-Type-Options: nosniff`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { anonymous, createUser } from '../helpers/fixtures.js';
import { RawConnection } from '../helpers/raw-http.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`health probes and security headers (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_RATE_LIMIT: '30', TEAMSTAGE_AUTH_FAILURE_LIMIT: '5' });
    });
    after(() => ctx.close());

    it('45 quick probes of /readyz and of /healthz all answer 200, while the API limit still holds', async () => {
      for (const url of ['/readyz', '/healthz']) {
        const answers = await Promise.all(Array.from({ length: 45 }, () => ctx.app.inject({ method: 'GET', url })));
        assert.deepEqual(answers.map((answer) => answer.statusCode), Array(45).fill(200), url);
      }
      const user = await createUser(ctx);
      const burst = await Promise.all(Array.from({ length: 40 }, () => user.api.get('/account/details')));
      assert.ok(burst.some((answer) => answer.status === 429), 'the API is limited as before');
    });

    it('X-Content-Type-Options: nosniff on every kind of answer', async () => {
      const user = await createUser(ctx);
      const answers = {
        'a 200': await user.api.get('/account/details'),
        'a 201': await user.api.post('/organizations', { data: { type: 'organizations', attributes: { name: `o${Date.now()}`, email: 'a@b.test' } } }),
        'a 204': await anonymous(ctx).get('/api/v2/ping'),
        'a 401': await anonymous(ctx).get('/api/v2/account/details'),
        'a 404 of no route': await user.api.get('/nothing-here'),
        'a 422': await user.api.post('/organizations', { data: { type: 'organizations', attributes: { name: '' } } }),
        'the discovery document': await anonymous(ctx).get('/.well-known/terraform.json'),
      };
      for (const [what, answer] of Object.entries(answers)) assert.equal(answer.headers['x-content-type-options'], 'nosniff', what);
      for (const url of ['/healthz', '/readyz', '/metrics', '/api/docs', '/app/']) {
        const answer = await ctx.app.inject({ method: 'GET', url });
        assert.equal(answer.headers['x-content-type-options'], 'nosniff', url);
      }
      // An address over its failed-authentication budget is refused in the first hook: that 429 too.
      const stranger = anonymous(ctx).as('made-up-token');
      let refused;
      for (let attempt = 0; attempt < 10 && refused === undefined; attempt++) {
        const answer = await stranger.get('/account/details');
        if (answer.status === 429) refused = answer;
      }
      assert.ok(refused, 'the failed-authentication limit refused the address');
      assert.equal(refused.headers['x-content-type-options'], 'nosniff', 'an early 429');
    });

    it('answers node:http gives by itself (a malformed request) carry it too', async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (ctx.app.server.address() as { port: number }).port;
      const connection = await RawConnection.open(port);
      try {
        await connection.write('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n');
        const response = await connection.response(3000);
        assert.ok(response, 'an answer came');
        assert.equal(response.status, 400);
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
      } finally {
        connection.destroy();
      }
    });
  });
}
