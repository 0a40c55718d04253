import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestAppOptions, type TestContext } from '../helpers/test-app.js';

// Cache hits answered before Fastify (src/http/response-cache.ts, answerEarly) over a real socket: the
// early path lives in the node:http server, which app.inject() never reaches.

/** A listening app, an organization with a team, and a GET of that team over HTTP. */
async function listeningApp(dialect: Dialect, env: Record<string, string> = {}, options: TestAppOptions = {}) {
  const ctx = await createTestApp(dialect, env, options);
  const base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const org = await createOrganization(ctx);
  const team = await createTeam(ctx, org, { name: 'early' });
  const url = `${base}/api/v2/teams/${team.id}`;
  const get = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${org.owner.token}` } });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
  return { ctx, org, url, get };
}

async function metricValue(ctx: TestContext, pattern: RegExp): Promise<number | undefined> {
  const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
  const match = pattern.exec(metrics);
  return match ? Number(match[1]) : undefined;
}

const earlyHits = (ctx: TestContext, early: boolean) => metricValue(ctx, new RegExp(`teamstage_response_cache_hits_total\\{early="${early}"\\} (\\d+)`));

for (const dialect of testDialects()) {
  describe(`cache hits answered before Fastify (${dialect})`, () => {
    let app: Awaited<ReturnType<typeof listeningApp>>;
    before(async () => {
      app = await listeningApp(dialect);
    });
    after(() => app.ctx.close());

    it('answers a repeated GET early, with the same status, headers and bytes, and counts it in the metrics', async () => {
      const first = await app.get();
      const second = await app.get();
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      for (const name of ['content-type', 'content-length', 'connection', 'keep-alive']) {
        assert.equal(second.headers.get(name), first.headers.get(name), name);
      }
      assert.equal(await earlyHits(app.ctx, true), 1);
      const requests = await metricValue(
        app.ctx,
        /teamstage_http_requests_total\{method="GET",route="\/api\/v2\/teams\/:team_id",status="200"\} (\d+)/,
      );
      assert.equal(requests, 2, 'the early hit is counted as Fastify would have counted it');
    });

    it('shows a write made between two GETs at once', async () => {
      await app.get();
      const renamed = await fetch(app.url, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${app.org.owner.token}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: 'teams', attributes: { name: 'renamed' } } }),
      });
      assert.equal(renamed.status, 200);
      assert.equal(JSON.parse((await app.get()).body.toString()).data.attributes.name, 'renamed');
    });
  });

  describe(`cache hits pass Fastify's hooks when those are visible (${dialect})`, () => {
    it('with a rate limit, every hit is counted by the limit', async () => {
      const app = await listeningApp(dialect, { TEAMSTAGE_RATE_LIMIT: '100' });
      try {
        const first = await app.get();
        const hit = await app.get();
        assert.equal(hit.status, 200);
        assert.equal(Number(hit.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1);
        assert.equal(await earlyHits(app.ctx, false), 1);
        assert.equal(await earlyHits(app.ctx, true), undefined);
      } finally {
        await app.ctx.close();
      }
    });

    it('with request logs, every hit is logged', async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      const app = await listeningApp(dialect, {}, { logger: { level: 'info', stream } });
      try {
        await app.get();
        await app.get();
        const path = new URL(app.url).pathname;
        const teamGets = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'incoming request' && entry.req?.url === path);
        assert.equal(teamGets.length, 2);
        assert.equal(await earlyHits(app.ctx, false), 1);
      } finally {
        await app.ctx.close();
      }
    });
  });
}
