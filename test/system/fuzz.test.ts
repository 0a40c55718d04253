/**
 * Issue 4: fuzz over every endpoint. Random methods, paths (every route of the OpenAPI document, with
 * real and random ids), query strings, headers, bodies and tokens. The server never answers 5xx, never
 * crashes, and no rejected request changes the database (digest before and after).
 * TEAMSTAGE_FUZZ_RUNS sets the number of requests per database (default 1500).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { databaseDigest } from '../helpers/db-snapshot.js';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const runs = Number(process.env.TEAMSTAGE_FUZZ_RUNS ?? 1500);
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

interface Fixture {
  routes: Array<{ method: string; template: string }>;
  ids: string[];
  tokens: string[];
}

async function prepare(ctx: TestContext): Promise<Fixture> {
  const org = await createOrganization(ctx);
  const member = await addMember(ctx, org);
  const team = await createTeam(ctx, org, { visibility: 'organization' });
  await addToTeam(org, team.id, member.username);
  const teamToken = (await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'fuzz' } } })).body.data.attributes.token;
  const orgToken = (await org.owner.api.post(`/organizations/${org.name}/authentication-token`, {})).body.data.attributes.token;
  const paths = (ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
  const routes = Object.entries(paths).flatMap(([template, operations]) =>
    Object.keys(operations).filter((method) => method !== 'head').map((method) => ({ method: method.toUpperCase(), template })),
  );
  const ids = [org.name, team.id, org.ownersTeamId, member.username, member.id, member.membershipId, org.owner.id, org.owner.username];
  return { routes, ids, tokens: [org.owner.token, member.token, teamToken, orgToken, ctx.siteToken] };
}

function requestArbitrary(fixture: Fixture) {
  const segment = fc.oneof(
    fc.constantFrom(...fixture.ids),
    fc.string({ maxLength: 20 }),
    fc.constantFrom('..', '%00', '%2F', 'team-', 'ts-x', '0', '-1', 'x'.repeat(300), 'ünïcødé', '%5B%5D'),
  );
  const path = fc
    .tuple(fc.constantFrom(...fixture.routes), fc.array(segment, { minLength: 6, maxLength: 6 }))
    .map(([route, values]) => {
      let index = 0;
      return { route, path: route.template.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[index++]!)) };
    });
  const query = fc
    .dictionary(
      fc.constantFrom('include', 'page[number]', 'page[size]', 'page%5Bsize%5D', 'q', 'filter[names]', 'filter[status]', 'filter[email]', 'sort', 'x'),
      fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('users', 'task_results', '0', '101', '-5', 'a,b', '%2C', 'x'.repeat(2000))),
      { maxKeys: 4 },
    )
    .map((entries) => Object.entries(entries).map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&'));
  const document = fc.record({
    data: fc.oneof(
      fc.record({
        type: fc.oneof(fc.constantFrom('teams', 'users', 'organizations', 'tasks', 'workspaces', 'runs'), fc.string()),
        attributes: fc.dictionary(
          fc.constantFrom('name', 'email', 'visibility', 'organization-access', 'description', 'url', 'status', 'enforcement-level', 'stages', 'hmac-key', 'x'),
          fc.oneof(fc.jsonValue(), fc.string({ maxLength: 40 }), fc.dictionary(fc.string({ maxLength: 30 }), fc.oneof(fc.boolean(), fc.string()))),
        ),
        relationships: fc.option(fc.jsonValue(), { nil: undefined }),
      }),
      fc.array(fc.record({ type: fc.string(), id: fc.oneof(fc.constantFrom(...fixture.ids), fc.string()) }), { maxLength: 3 }),
      fc.jsonValue(),
    ),
  });
  const body = fc.oneof(
    fc.constant(undefined),
    document.map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 50 }),
    fc.constantFrom('{"data":', 'null', '[]', '{}', '"x"', `{"data":{"type":"teams","attributes":{"name":"${'a'.repeat(5000)}"}}}`),
  );
  const headers = fc.record({
    contentType: fc.constantFrom('application/vnd.api+json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined, 'garbage/garbage; charset=utf-8'),
    token: fc.oneof(fc.constantFrom(...fixture.tokens), fc.string({ maxLength: 80 }), fc.constant(undefined), fc.constant('x'.repeat(600))),
  });
  return fc.record({
    method: fc.oneof(fc.constantFrom(...METHODS), fc.constant('ROUTE')),
    target: path,
    query,
    body,
    headers,
  });
}

for (const dialect of testDialects()) {
  describe(`fuzz over every endpoint (${dialect})`, { timeout: 600_000 }, () => {
    let ctx: TestContext;
    let fixture: Fixture;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' });
      fixture = await prepare(ctx);
    });
    after(() => ctx.close());

    it(`never answers 5xx and never changes the database on a rejected request (${runs} requests)`, async () => {
      assert.ok(fixture.routes.length >= 30, `the OpenAPI document lists the routes (${fixture.routes.length})`);
      let rejected = 0;
      let digest = await databaseDigest(ctx.handle);
      await fc.assert(
        fc.asyncProperty(requestArbitrary(fixture), async (request) => {
          const method = request.method === 'ROUTE' ? request.target.route.method : request.method;
          const headers: Record<string, string> = {};
          if (request.headers.contentType) headers['content-type'] = request.headers.contentType;
          if (request.headers.token !== undefined) headers.authorization = `Bearer ${request.headers.token}`;
          const response = await ctx.app.inject({
            method: method as 'GET',
            url: `${request.target.path}${request.query ? `?${request.query}` : ''}`,
            headers,
            payload: request.body,
          });
          assert.ok(response.statusCode < 500, `${method} ${request.target.path} → ${response.statusCode}: ${response.body}`);
          const after = await databaseDigest(ctx.handle);
          if (response.statusCode >= 400) {
            rejected += 1;
            assert.equal(after, digest, `rejected ${method} ${request.target.path} (${response.statusCode}) changed the database`);
            const parsed = JSON.parse(response.body);
            assert.ok(Array.isArray(parsed.errors) && parsed.errors[0].status === String(response.statusCode), response.body);
          }
          digest = after;
        }),
        { numRuns: runs },
      );
      console.log(`${dialect}: ${runs} fuzzed requests over ${fixture.routes.length} routes, ${rejected} rejected, 0 5xx, 0 changes by rejected requests`);
    });
  });
}
