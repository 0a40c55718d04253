/**
 * Issue 25 item 10: behind a TLS proxy every client shares the proxy's address, so one client's bad tokens
 * locked out the rest. TEAMSTAGE_TRUSTED_PROXIES names the proxies whose X-Forwarded-For is believed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ApiClient } from '../helpers/api-client.js';
import { createUser } from '../helpers/fixtures.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

const LIMIT = 3;
const forwardedFor = (address: string) => ({ 'x-forwarded-for': address });

/** `LIMIT` bad tokens from the attacker, then a first request of a valid token (never seen on this node) from someone else. */
async function lockoutScenario(ctx: TestContext, victimHeaders: Record<string, string>, attackerHeaders: Record<string, string>) {
  const victim = await createUser(ctx);
  const fresh = await victim.api.post(`/users/${victim.id}/authentication-tokens`);
  const attacker = new ApiClient(ctx.app, 'made-up-token-that-is-long-enough');
  for (let attempt = 0; attempt < LIMIT; attempt++) assert.equal((await attacker.get('/account/details', attackerHeaders)).status, 401);
  const attackerAgain = await attacker.get('/account/details', attackerHeaders);
  const victimAnswer = await new ApiClient(ctx.app, fresh.body.data.attributes.token).get('/account/details', victimHeaders);
  return { attacker: attackerAgain.status, victim: victimAnswer.status };
}

describe('TEAMSTAGE_TRUSTED_PROXIES', () => {
  it('is a list of CIDRs or addresses; anything else stops the start, by name', () => {
    assert.deepEqual(loadConfig({}).trustedProxies, []);
    assert.deepEqual(loadConfig({ TEAMSTAGE_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1 fd00::/8,::1' }).trustedProxies, ['10.0.0.0/8', '127.0.0.1', 'fd00::/8', '::1']);
    for (const bad of ['proxy.internal', '10.0.0.0/33', '10.0.0.0/8/8', '::/129', '300.1.1.1']) {
      assert.throws(() => loadConfig({ TEAMSTAGE_TRUSTED_PROXIES: bad }), (error) => error instanceof ConfigError && error.message.includes('TEAMSTAGE_TRUSTED_PROXIES'), bad);
    }
  });

  describe('with the proxy trusted', () => {
    let ctx: TestContext;
    const lines: string[] = [];
    before(async () => {
      // app.inject's peer is 127.0.0.1: the proxy.
      ctx = await createTestApp('sqlite', { TEAMSTAGE_AUTH_FAILURE_LIMIT: String(LIMIT), TEAMSTAGE_TRUSTED_PROXIES: '127.0.0.1/32' }, {
        logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
      });
    });
    after(() => ctx.close());

    it("one client's bad tokens lock out that client only, not the others behind the same proxy", async () => {
      const outcome = await lockoutScenario(ctx, forwardedFor('203.0.113.9'), forwardedFor('203.0.113.5'));
      assert.deepEqual(outcome, { attacker: 429, victim: 200 });
    });

    it('the request log shows the client address from X-Forwarded-For, the last one not a trusted proxy', async () => {
      lines.length = 0;
      await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-forwarded-for': '198.51.100.20, 198.51.100.7, 127.0.0.1' } });
      const entry = lines.map((line) => JSON.parse(line)).find((logged) => logged.url === '/api/v2/ping');
      assert.ok(entry, lines.join(''));
      assert.equal(entry.remoteAddress, '198.51.100.7', 'the hop before our trusted proxy; what the client itself wrote earlier is not believed');
    });

    it('X-Forwarded-For from a peer that is not a trusted proxy is ignored', async () => {
      lines.length = 0;
      await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '192.0.2.44', headers: forwardedFor('198.51.100.1') });
      const entry = lines.map((line) => JSON.parse(line)).find((logged) => logged.url === '/api/v2/ping');
      assert.equal(entry?.remoteAddress, '192.0.2.44');
    });
  });

  describe('without it (the default)', () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp('sqlite', { TEAMSTAGE_AUTH_FAILURE_LIMIT: String(LIMIT) });
    });
    after(() => ctx.close());

    it('X-Forwarded-For is not believed: every client of the proxy shares its address (a spoofed header buys nothing)', async () => {
      const outcome = await lockoutScenario(ctx, forwardedFor('203.0.113.9'), forwardedFor('203.0.113.5'));
      assert.deepEqual(outcome, { attacker: 429, victim: 429 });
    });
  });
});
