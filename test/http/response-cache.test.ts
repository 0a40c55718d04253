import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { joinAndMigrate } from '../../src/db/migrate.js';
import { ApiClient } from '../helpers/api-client.js';
import { addMember, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

// The response cache (src/http/response-cache.ts): on SQLite always, on PostgreSQL while the node is alone.
for (const dialect of testDialects()) {
describe(`cached responses are never stale (${dialect})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp(dialect);
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

  it('a lone PostgreSQL node answers repeated GETs from its cache', { skip: dialect !== 'postgres' }, async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org, { name: 'cached' });
    // A write that bypasses Teamstage and the node list is the one thing the cache cannot see: here it
    // shows that the second GET was a hit. Every writer that follows the rules is covered by the next test.
    // Connected first, so that only the update stands between the two GETs (an entry lives at most 1 s).
    const bypass = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await bypass.connect();
    assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name, 'cached');
    await bypass.query(`update teams set name = 'bypassed', name_lower = 'bypassed' where id = $1`, [team.id]);
    await bypass.end();
    assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name, 'cached');
  });

  it('sees at once a change made by a second PostgreSQL node, which stops the first from caching', { skip: dialect !== 'postgres' }, async () => {
    const org = await createOrganization(ctx);
    const team = await createTeam(ctx, org, { name: 'first' });
    const show = async () => (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes.name;
    assert.equal(await show(), 'first');
    const second = openDatabase(ctx.config.databaseUrl);
    try {
      await joinAndMigrate(second); // waits until the first node cannot believe it is alone any more
      second.loneNode!.start();
      assert.equal(await show(), 'first'); // computed again, and not cached: two nodes now
      await second.db.updateTable('teams').set({ name: 'second', name_lower: 'second' }).where('id', '=', team.id).execute();
      assert.equal(await show(), 'second');
    } finally {
      await second.close();
    }
  });
});
}

describe('cached responses still count against the rate limit (sqlite)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp('sqlite', { TEAMSTAGE_RATE_LIMIT: '5' });
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

