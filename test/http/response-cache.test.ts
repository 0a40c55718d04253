import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { ApiClient } from '../helpers/api-client.js';
import { addMember, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

// TEAMSTAGE_CACHE=on (src/cache/): the response and identity caches on SQLite; on PostgreSQL the switch
// does nothing. Each exactness claim holds on each database with the cache on.

async function cacheHits(ctx: TestContext): Promise<number> {
  const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/teamstage_response_cache_hits_total\{early="false"\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

for (const dialect of testDialects()) {
describe(`cached responses are never stale (${dialect}, TEAMSTAGE_CACHE=on)`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp(dialect, { TEAMSTAGE_CACHE: 'on' });
  });
  after(() => ctx.close());

  it('sees a change committed by another connection (another process) at once', { skip: dialect !== 'sqlite' }, async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org, { name: 'before' });
    assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name, 'before');
    assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name, 'before');
    const other = new SQLite(ctx.config.databaseUrl.slice('sqlite:'.length));
    other.prepare("update teams set name = 'after', name_lower = 'after' where id = ?").run(team.id);
    other.close();
    assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name, 'after');
  });

  it('a deleted token stops working at once even though its responses were cached', async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org);
    const created = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'c' } } });
    const teamApi = new ApiClient(ctx.app, created.body.data.attributes.token);
    assert.equal((await teamApi.get(`/teams/${team.id}`)).status, 200);
    assert.equal((await teamApi.get(`/teams/${team.id}`)).status, 200);
    assert.equal((await org.owner.api.delete(`/authentication-tokens/${created.body.data.id}`)).status, 204);
    assert.equal((await teamApi.get(`/teams/${team.id}`)).status, 401);
  });

  it('the same URL answers each caller with what that caller may see', async () => {
    const org = await createOrganization(ctx);
    const member = await addMember(ctx, org);
    await createTeam(ctx, org, { name: 'hidden', visibility: 'secret' });
    const url = `/organizations/${org.name}/teams?filter[names]=hidden`;
    assert.equal((await org.owner.api.get(url)).body.data.length, 1);
    assert.equal((await org.owner.api.get(url)).body.data.length, 1);
    assert.equal((await member.api.get(url)).body.data.length, 0);
  });

  it('answers a repeated GET from the cache on SQLite', { skip: dialect !== 'sqlite' }, async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org);
    const before = await cacheHits(ctx);
    await org.owner.api.get(`/teams/${team.id}`);
    await org.owner.api.get(`/teams/${team.id}`);
    assert.equal(await cacheHits(ctx), before + 1);
  });

  it('a member removed from the organization loses access at once', async () => {
    const org = await createOrganization(ctx);
    const member = await addMember(ctx, org);
    const url = `/organizations/${org.name}/teams`;
    assert.equal((await member.api.get(url)).status, 200);
    assert.equal((await member.api.get(url)).status, 200);
    assert.equal((await org.owner.api.delete(`/organization-memberships/${member.membershipId}`)).status, 204);
    assert.equal((await member.api.get(url)).status, 404);
  });

  it('caches nothing on PostgreSQL: even a write that bypasses Teamstage shows at once', { skip: dialect !== 'postgres' }, async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org, { name: 'first' });
    const show = async () => (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name;
    assert.equal(await show(), 'first');
    const bypass = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await bypass.connect();
    await bypass.query(`update teams set name = 'bypassed', name_lower = 'bypassed' where id = $1`, [team.id]);
    await bypass.end();
    assert.equal(await show(), 'bypassed');
    assert.equal(await cacheHits(ctx), 0);
  });
});
}

describe('cached responses still count against the rate limit (sqlite)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp('sqlite', { TEAMSTAGE_RATE_LIMIT: '5', TEAMSTAGE_CACHE: 'on' });
  });
  after(() => ctx.close());

  it('answers 429 once one principal exceeds the limit, even for a cached GET', async () => {
    const org = await createOrganization(ctx);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a fresh one-second window
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await org.owner.api.get(`/organizations/${org.name}/teams`)).status);
    assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    assert.ok(statuses.slice(5).every((status) => status === 429), statuses.join(','));
  });
});


describe('TEAMSTAGE_CACHE=off constructs no cache (sqlite)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp('sqlite', { TEAMSTAGE_CACHE: 'off' });
  });
  after(() => ctx.close());

  it('answers every GET through its handler', async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org);
    await org.owner.api.get(`/teams/${team.id}`);
    await org.owner.api.get(`/teams/${team.id}`);
    assert.equal(await cacheHits(ctx), 0);
  });
});
