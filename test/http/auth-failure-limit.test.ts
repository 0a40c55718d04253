import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createUser, type TestUser } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

// Issue 14, item 11: requests with a missing or invalid token were never rate limited (authentication
// refused them before the limit counted anything) and every made-up token was a stranger of its own.
// Failed authentication is now limited per client address, and refused before any database work.

const LIMIT = 5;

for (const dialect of testDialects()) {
  describe(`failed authentication is limited per client address (${dialect})`, () => {
    let ctx: TestContext;
    let alice: TestUser;
    let lookups = 0;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_AUTH_FAILURE_LIMIT: String(LIMIT) });
      alice = await createUser(ctx);
      // Counts what reaches the database: every authentication that was not refused first.
      const authenticator = ctx.services.authenticator;
      const authenticate = authenticator.authenticate.bind(authenticator);
      authenticator.authenticate = async (token) => {
        lookups += 1;
        return authenticate(token);
      };
    });
    after(() => ctx.close());

    const from = (address: string, token: string | undefined, url = '/api/v2/account/details') =>
      ctx.app.inject({ method: 'GET', url, remoteAddress: address, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    const madeUp = () => `${randomBytes(10).toString('hex')}.atlasv1.${randomBytes(30).toString('hex')}`;
    const parsed = (response: Awaited<ReturnType<typeof from>>) => ({ status: response.statusCode, headers: response.headers, body: response.json(), text: response.body });

    it(`answers 401 to the first ${LIMIT} failures from an address, then 429 with Retry-After, before any database work`, async () => {
      const address = '203.0.113.7';
      assert.equal((await from(address, alice.token)).statusCode, 200, 'a valid token from the address, before the flood');
      for (let i = 0; i < LIMIT; i++) {
        const response = await from(address, i === 0 ? undefined : madeUp());
        assert.equal(response.statusCode, 401, `failure ${i + 1}: ${response.body}`);
      }
      const lookupsBefore = lookups;
      for (let i = 0; i < 20; i++) {
        const refused = parsed(await from(address, madeUp()));
        const error = assertError(refused, 429);
        assert.match(error.detail ?? '', /failed authentication/);
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After in seconds, got ${refused.headers['retry-after']}`);
        assert.equal(refused.headers['x-ratelimit-reset'], refused.headers['retry-after']);
      }
      assert.equal(parsed(await from(address, undefined)).status, 429, 'no token at all is refused too');
      assert.equal(lookups, lookupsBefore, 'refused requests never reached authentication');

      const valid = await from(address, alice.token);
      assert.equal(valid.statusCode, 200, `a token that worked from this node before still works from the address: ${valid.body}`);
      assert.equal((await from('198.51.100.9', madeUp())).statusCode, 401, 'another address has its own budget');
    });

    it('counts failures on routes that check their own tokens (run task callbacks, downloads) too', async () => {
      const address = '203.0.113.8';
      for (let i = 0; i < LIMIT; i++) {
        const response = await from(address, madeUp(), '/api/v2/plans/plan-doesnotexist0000/json-output');
        assert.equal(response.statusCode, 401, response.body);
      }
      assert.equal((await from(address, madeUp())).statusCode, 429);
    });

    it('counts an IPv6 /64 as one address', async () => {
      for (let i = 0; i < LIMIT; i++) assert.equal((await from(`2001:db8:1:2::${i + 1}`, madeUp())).statusCode, 401);
      assert.equal((await from('2001:db8:1:2:ffff::99', madeUp())).statusCode, 429);
      assert.equal((await from('2001:db8:1:3::1', madeUp())).statusCode, 401, 'the next /64 is another address');
    });

    it('a token that fails (revoked) is a stranger again: it no longer passes a refused address', async () => {
      const address = '203.0.113.9';
      const bob = await createUser(ctx);
      assert.equal((await from(address, bob.token)).statusCode, 200);
      const tokens = await bob.api.get(`/users/${bob.id}/authentication-tokens`);
      const revoked = await bob.api.delete(`/authentication-tokens/${tokens.body.data[0].id}`);
      assert.equal(revoked.status, 204, revoked.text);
      assert.equal((await from(address, bob.token)).statusCode, 401);
      for (let i = 1; i < LIMIT; i++) assert.equal((await from(address, madeUp())).statusCode, 401);
      assert.equal((await from(address, bob.token)).statusCode, 429);
    });
  });

  describe(`over a socket, a refused address is answered in Fastify's first hook (${dialect})`, () => {
    let ctx: TestContext;
    let base: string;
    before(async () => {
      // A rate limit on: refusals are answered in the first hook all the same, before the limit counts them.
      ctx = await createTestApp(dialect, { TEAMSTAGE_AUTH_FAILURE_LIMIT: String(LIMIT), TEAMSTAGE_RATE_LIMIT: '1000' });
      base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => ctx.close());

    const get = async (path: string, token?: string) => {
      const response = await fetch(`${base}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const metric = async (pattern: RegExp) => Number(pattern.exec((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)?.[1] ?? 0);

    it('with the same status, headers and document as Fastify would send, and counted in the metrics', async () => {
      const alice = await createUser(ctx);
      assert.equal((await get('/api/v2/account/details', alice.token)).status, 200);
      for (let i = 0; i < LIMIT; i++) assert.equal((await get('/api/v2/account/details', `made-up-${i}`)).status, 401);
      const early = await get('/api/v2/account/details', 'made-up-again');
      const throughFastify = await get('/api/v2/account/details'); // no credentials: refused by the authentication hook
      for (const refused of [early, throughFastify]) {
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.headers.get('content-type'), 'application/vnd.api+json; charset=utf-8');
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
        assert.equal(refused.headers.get('x-ratelimit-reset'), refused.headers.get('retry-after'));
        const error = JSON.parse(refused.text).errors[0];
        assert.equal(error.title, 'too many requests');
        assert.match(error.detail, new RegExp(`limit ${LIMIT} per minute`));
      }
      assert.deepEqual(Object.keys(JSON.parse(early.text).errors[0]), Object.keys(JSON.parse(throughFastify.text).errors[0]));
      assert.equal(await metric(/^teamstage_auth_failure_refusals_early_total (\d+)/m), 1);
      assert.equal(await metric(/teamstage_http_requests_total\{method="GET",route="\/api\/v2\/account\/details",status="429"\} (\d+)/), 2, 'both refusals are counted as requests');

      assert.equal((await get('/api/v2/ping')).status, 204, 'a public route without credentials is not refused');
      assert.equal((await get('/api/v2/account/details', alice.token)).status, 200, 'a token valid before still works');
    });
  });

  describe(`with TEAMSTAGE_AUTH_FAILURE_LIMIT=0 failed authentication is not limited (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_AUTH_FAILURE_LIMIT: '0' });
    });
    after(() => ctx.close());

    it('answers 401 however often', async () => {
      for (let i = 0; i < 100; i++) {
        const response = await ctx.app.inject({ method: 'GET', url: '/api/v2/account/details', headers: { authorization: 'Bearer nope' } });
        assert.equal(response.statusCode, 401);
      }
    });
  });
}
