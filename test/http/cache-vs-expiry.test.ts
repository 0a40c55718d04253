import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

// Issue 14, item 9: a cached response must never answer for a token past its `expired-at` or after its
// revocation, with the cache on (TEAMSTAGE_CACHE=on; SQLite caches, PostgreSQL does not), with and
// without the rate limit's hooks. Over a real socket, as clients see it.

const sleepUntil = (epochMs: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now())));

const PATHS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'cache on', env: { TEAMSTAGE_CACHE: 'on' } },
  { name: 'cache on, rate limit on', env: { TEAMSTAGE_CACHE: 'on', TEAMSTAGE_RATE_LIMIT: '1000' } },
];

for (const dialect of testDialects()) {
  for (const path of PATHS) {
    describe(`a cached response holds no token past its expiry or revocation (${dialect}, ${path.name})`, () => {
      let ctx: TestContext;
      let base: string;
      let org: TestOrganization;
      let teamUrl: string;
      before(async () => {
        ctx = await createTestApp(dialect as Dialect, path.env);
        base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
        org = await createOrganization(ctx);
        const team = await createTeam(ctx, org, { name: 'cached' });
        teamUrl = `${base}/api/v2/teams/${team.id}`;
      });
      after(() => ctx.close());

      const get = async (token: string) => {
        const response = await fetch(teamUrl, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: await response.text() };
      };
      const organizationToken = async (expiredAt: string | null) => {
        const created = await org.owner.api.post(`/organizations/${org.name}/authentication-token`, {
          data: { type: 'authentication-tokens', attributes: { 'expired-at': expiredAt } },
        });
        assert.equal(created.status, 201, created.text);
        return created.body.data.attributes.token as string;
      };
      const cacheHits = async () => {
        const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
        return [...metrics.matchAll(/teamstage_response_cache_hits_total\{early="(?:true|false)"\} (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      };

      it('answers 401 at the first request after expired-at, even right after a cached 200', async () => {
        // Ask for the entry shortly before the expiry, so that it is still young (well under the cache's
        // one second) when the token expires.
        const expiresAt = Date.now() + 1500;
        const token = await organizationToken(new Date(expiresAt).toISOString());
        // A token's first use in a minute writes its last-used-at, and no response is cached across a write.
        assert.equal((await get(token)).status, 200);
        await sleepUntil(expiresAt - 400);
        const hitsBefore = await cacheHits();
        assert.equal((await get(token)).status, 200);
        const cached = await get(token);
        assert.equal(cached.status, 200);
        const cacheServed = (await cacheHits()) > hitsBefore;
        if (dialect === 'sqlite') assert.ok(cacheServed, 'the second GET was a cache hit (the entry exists)');
        await sleepUntil(expiresAt + 5);
        const expired = await get(token);
        assert.equal(expired.status, 401, `expired token answered ${expired.status}: ${expired.body}`);
        assert.match(JSON.parse(expired.body).errors[0].detail, /expired/);
      });

      it('answers 401 at the first request after a revocation, even right after a cached 200', async () => {
        const token = await organizationToken(null);
        assert.equal((await get(token)).status, 200);
        assert.equal((await get(token)).status, 200);
        const revoked = await org.owner.api.delete(`/organizations/${org.name}/authentication-token`);
        assert.equal(revoked.status, 204, revoked.text);
        assert.equal((await get(token)).status, 401);
      });
    });
  }
}
