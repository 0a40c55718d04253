import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiClient } from '../helpers/api-client.js';
import { databaseDigest } from '../helpers/db-snapshot.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, siteAdmin } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/**
 * Every write endpoint, fed malformed input: only 4xx JSON:API error documents come back, never a 5xx, and
 * nothing in the database changes. Routes are discovered from the running app's OpenAPI document, so a new
 * write endpoint is covered the day it appears (with the malformations that are wrong for any endpoint);
 * the Teams side declares its bodies so every attribute is also sent with the wrong type.
 */

type BodyKind =
  /** A JSON:API document with `data` is required: anything without a valid one is malformed. */
  | 'required'
  /** An empty body is valid (`{}`), but a `data` member must be a proper document. */
  | 'optional'
  /** The route takes no body: only bodies that are not JSON objects are malformed. */
  | 'none';

type Attr = 'string' | 'nullable-string' | 'boolean' | 'visibility' | 'access' | 'identifiers';

interface RouteSpec {
  body: BodyKind;
  /** `data.attributes` members and their types (for wrong-type and huge-string cases). */
  attributes?: Record<string, Attr>;
  /** For relationship bodies `{"data":[{type,id}]}`. */
  identifiers?: string;
  /** A valid document, mutated member by member into invalid ones. */
  valid?: () => unknown;
  caller?: 'site-admin' | 'invited' | 'owner' | 'none';
  /** go-tfe sends this route a document of empty type (a lock's reason): an empty type is no malformation here. */
  emptyType?: boolean;
}

const TEAM_ATTRIBUTES: Record<string, Attr> = {
  name: 'string',
  'sso-team-id': 'nullable-string',
  visibility: 'visibility',
  'organization-access': 'access',
  'allow-member-token-management': 'boolean',
  'allow-team-token-management': 'boolean',
};
const TOKEN_ATTRIBUTES: Record<string, Attr> = { description: 'nullable-string', 'expired-at': 'nullable-string' };

/** The Teams side (every write route of issue 2) and the lists of workspace relationships, with what each body must be. */
const TEAMS_SIDE: Record<string, RouteSpec> = {
  'POST /api/v2/admin/users': {
    body: 'required', caller: 'site-admin', attributes: { username: 'string', email: 'string' },
    valid: () => ({ data: { type: 'users', attributes: { username: 'fresh-user', email: 'fresh@example.test' } } }),
  },
  'POST /api/v2/users/{user_id}/authentication-tokens': { body: 'optional', attributes: TOKEN_ATTRIBUTES },
  'POST /api/v2/organizations/{organization_name}/authentication-token': { body: 'optional', attributes: TOKEN_ATTRIBUTES },
  'DELETE /api/v2/organizations/{organization_name}/authentication-token': { body: 'none' },
  'POST /api/v2/teams/{team_id}/authentication-token': { body: 'optional', attributes: TOKEN_ATTRIBUTES },
  'DELETE /api/v2/teams/{team_id}/authentication-token': { body: 'none' },
  'POST /api/v2/teams/{team_id}/authentication-tokens': { body: 'optional', attributes: TOKEN_ATTRIBUTES },
  'DELETE /api/v2/authentication-tokens/{token_id}': { body: 'none' },
  'POST /api/v2/organizations': {
    body: 'required', attributes: { name: 'string', email: 'string' },
    valid: () => ({ data: { type: 'organizations', attributes: { name: 'fresh-org', email: 'a@example.test' } } }),
  },
  'PATCH /api/v2/organizations/{organization_name}': {
    body: 'required', attributes: { name: 'string', email: 'string' },
    valid: () => ({ data: { type: 'organizations', attributes: { email: 'changed@example.test' } } }),
  },
  'DELETE /api/v2/organizations/{organization_name}': { body: 'none' },
  'POST /api/v2/admin/organizations/{organization_name}/subscription': { body: 'required', caller: 'site-admin' },
  'POST /api/v2/organizations/{organization_name}/organization-memberships': {
    body: 'required', attributes: { email: 'string' },
    valid: () => ({ data: { type: 'organization-memberships', attributes: { email: 'fresh-invite@example.test' } } }),
  },
  'DELETE /api/v2/organization-memberships/{membership_id}': { body: 'none' },
  'POST /api/v2/organization-memberships/{membership_id}/actions/accept': { body: 'none', caller: 'invited' },
  'POST /api/v2/organizations/{organization_name}/teams': {
    body: 'required', attributes: TEAM_ATTRIBUTES,
    valid: () => ({ data: { type: 'teams', attributes: { name: 'fresh-team' } } }),
  },
  'PATCH /api/v2/teams/{team_id}': {
    body: 'required', attributes: TEAM_ATTRIBUTES,
    valid: () => ({ data: { type: 'teams', attributes: { name: 'renamed-team' } } }),
  },
  'DELETE /api/v2/teams/{team_id}': { body: 'none' },
  'POST /api/v2/teams/{team_id}/relationships/users': { body: 'required', identifiers: 'users' },
  'DELETE /api/v2/teams/{team_id}/relationships/users': { body: 'required', identifiers: 'users' },
  'POST /api/v2/teams/{team_id}/relationships/organization-memberships': { body: 'required', identifiers: 'organization-memberships' },
  'DELETE /api/v2/teams/{team_id}/relationships/organization-memberships': { body: 'required', identifiers: 'organization-memberships' },
  // Lists of workspaces and tags, where an empty list is a valid no-op (PATCH: clears the consumers).
  'POST /api/v2/workspaces/{workspace_id}/relationships/remote-state-consumers': { body: 'required', identifiers: 'workspaces' },
  'PATCH /api/v2/workspaces/{workspace_id}/relationships/remote-state-consumers': { body: 'required', identifiers: 'workspaces' },
  'DELETE /api/v2/workspaces/{workspace_id}/relationships/remote-state-consumers': { body: 'required', identifiers: 'workspaces' },
  'POST /api/v2/workspaces/{workspace_id}/relationships/tags': { body: 'required', identifiers: 'tags' },
  'DELETE /api/v2/workspaces/{workspace_id}/relationships/tags': { body: 'required', identifiers: 'tags' },
  // A lock's optional reason (unlocks take the same, empty, body).
  'POST /api/v2/workspaces/{workspace_id}/actions/lock': { body: 'optional', emptyType: true, attributes: { reason: 'string' } },
  'POST /api/v2/workspaces/{workspace_id}/actions/unlock': { body: 'optional', emptyType: true, attributes: { reason: 'string' } },
  'POST /api/v2/workspaces/{workspace_id}/actions/force-unlock': { body: 'optional', emptyType: true, attributes: { reason: 'string' } },
};

/** Write routes of the other areas whose body may legitimately be empty. */
const OPTIONAL_ELSEWHERE = [/\/configuration-versions$/, /\/actions\/(apply|discard|cancel|override)$/];

interface Request {
  payload?: string;
  contentType?: string;
  label: string;
}

const json = (value: unknown, label: string): Request => ({ payload: JSON.stringify(value), contentType: 'application/vnd.api+json', label });

/** Bodies that are wrong for every route, whatever it expects. */
const universal: fc.Arbitrary<Request> = fc.oneof(
  fc.constantFrom('{', '{"data":', '{"data": {]}', "{'data': {}}", 'nul', '{"a":1,}', 'undefined', '\u0000', '{"data":{"type":"teams"}}}').map(
    (payload) => ({ payload, contentType: 'application/vnd.api+json', label: `unparseable ${JSON.stringify(payload)}` }),
  ),
  fc.string({ minLength: 1, maxLength: 40 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.trim() !== '';
    }
  }).map((payload) => ({ payload, contentType: 'application/json', label: `unparseable ${JSON.stringify(payload)}` })),
  fc.constantFrom('null', '[]', '[{"data":{}}]', '5', '"data"', 'true', '-0.5').map((payload) => ({
    payload, contentType: 'application/vnd.api+json', label: `not an object: ${payload}`,
  })),
  fc.record({
    contentType: fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png', 'application/octet-stream'),
    payload: fc.constantFrom('{"data":{"type":"teams","attributes":{"name":"x"}}}', 'data=1', '<data/>'),
  }).map(({ contentType, payload }) => ({ payload, contentType, label: `wrong content type ${contentType}` })),
);

function wrongValue(kind: Attr): fc.Arbitrary<unknown> {
  const anyNonString = fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.array(fc.string(), { minLength: 1, maxLength: 3 }));
  switch (kind) {
    case 'string':
      return fc.oneof(anyNonString, fc.constant(null), fc.constant('x'.repeat(300_000)), fc.string({ minLength: 1001, maxLength: 1200 }));
    case 'nullable-string':
      return fc.oneof(anyNonString, fc.constant('y'.repeat(200_000)));
    case 'boolean':
      return fc.oneof(fc.constantFrom('true', 'false', 0, 1, null, [], {}, 'yes'));
    case 'visibility':
      return fc.oneof(fc.constantFrom('public', 'SECRET', '', null, 1, true, ['secret']), fc.string().filter((s) => s !== 'secret' && s !== 'organization'));
    case 'access':
      return fc.oneof(
        fc.constantFrom(null, [], 'all', 5, true, [true]),
        fc.constantFrom('manage-teams', 'read-workspaces', 'manage-policies').chain((key) =>
          fc.constantFrom('true', 1, null, [], {}).map((value) => ({ [key]: value })),
        ),
      );
    case 'identifiers':
      return fc.constant(null);
  }
}

/** Documents that are malformed for a route with a body: missing or wrong `data`, unknown types, wrong attribute types. */
function documentMalformations(spec: RouteSpec): fc.Arbitrary<Request> {
  const options: Array<fc.Arbitrary<Request>> = [
    // For relationship bodies an empty array is a valid (empty) list; for every other body an array is wrong.
    fc.constantFrom<unknown>(null, 5, 'teams', true, ...(spec.identifiers ? [] : [[]]), [{}], [{ type: 'teams', attributes: {} }]).map((data) =>
      json({ data }, `data is ${JSON.stringify(data)}`),
    ),
    // Token creates take an empty type, as go-tfe sends it (CONTRACT section 3): not a malformation there.
    fc.constantFrom(...['bogus-type', 'Teams', 'team', '', 'workspace', 'users '].filter((type) => !(type === '' && (spec.attributes === TOKEN_ATTRIBUTES || spec.emptyType)))).map((type) =>
      json(spec.identifiers ? { data: [{ type, id: 'someone' }] } : { data: { type, attributes: {} } }, `unknown type ${JSON.stringify(type)}`),
    ),
  ];
  if (spec.body === 'required') {
    options.push(fc.constantFrom<unknown>({}, { meta: {} }, { Data: {} }, { errors: [] }).map((doc) => json(doc, `missing data: ${JSON.stringify(doc)}`)));
  }
  if (spec.identifiers) {
    const type = spec.identifiers;
    options.push(
      fc.constantFrom<unknown>(
        { data: { type, id: 'someone' } },
        { data: [{ type }] },
        { data: [{ type, id: 5 }] },
        { data: [{ type, id: '' }] },
        { data: [{ type, id: 'z'.repeat(300) }] },
        { data: [{ id: 'someone' }] },
        { data: ['someone'] },
        { data: Array.from({ length: 501 }, (_, i) => ({ type, id: `u${i}` })) },
      ).map((doc) => json(doc, `bad identifiers ${JSON.stringify(doc).slice(0, 80)}`)),
    );
  }
  if (spec.attributes) {
    const type = spec.valid ? ((spec.valid() as { data: { type: string } }).data.type) : 'authentication-tokens';
    options.push(fc.constantFrom<unknown>([], 'name', 5, null).map((attributes) => json({ data: { type, attributes } }, `attributes is ${JSON.stringify(attributes)}`)));
    for (const [attribute, kind] of Object.entries(spec.attributes)) {
      options.push(
        wrongValue(kind).map((value) => {
          const base = (spec.valid?.() ?? { data: { type, attributes: {} } }) as { data: { attributes: Record<string, unknown> } };
          base.data.attributes[attribute] = value;
          return json(base, `${attribute} = ${JSON.stringify(value)?.slice(0, 40)}`);
        }),
      );
    }
  }
  return fc.oneof(...options);
}

interface Route {
  method: string;
  path: string;
  spec: RouteSpec;
}

for (const dialect of testDialects()) {
  describe(`malformed input to every write endpoint (${dialect})`, () => {
    let ctx: TestContext;
    let routes: Route[];
    const params: Record<string, string> = {};
    const callers: Record<string, ApiClient> = {};

    before(async () => {
      ctx = await createTestApp(dialect);
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      const invitedUser = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: invitedUser.email } },
      });
      const token = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'd' } } });
      await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      const workspace = await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'ws-one' } } });
      Object.assign(params, {
        organization_name: org.name,
        team_id: team.id,
        user_id: org.owner.id,
        token_id: token.body.data.id,
        membership_id: member.membershipId,
        workspace_id: workspace.body?.data?.id ?? 'ws-doesnotexist0000',
      });
      callers.owner = org.owner.api;
      callers['site-admin'] = siteAdmin(ctx);
      callers.invited = invitedUser.api;
      params.invited_membership_id = invited.body.data.id;

      const docs = (await ctx.app.inject({ method: 'GET', url: '/api/docs' })).json() as { paths: Record<string, Record<string, unknown>> };
      routes = [];
      for (const [path, operations] of Object.entries(docs.paths)) {
        for (const method of Object.keys(operations)) {
          if (!['post', 'patch', 'put', 'delete'].includes(method)) continue;
          const key = `${method.toUpperCase()} ${path}`;
          const hasBody = Boolean((operations[method] as { requestBody?: unknown }).requestBody);
          const spec = TEAMS_SIDE[key] ?? {
            body: hasBody ? (OPTIONAL_ELSEWHERE.some((pattern) => pattern.test(path)) ? 'optional' : 'required') : 'none',
          };
          routes.push({ method: method.toUpperCase(), path, spec });
        }
      }
    });
    after(() => ctx.close());

    /** Every row of every table (node heartbeats aside), as a digest. */
    const snapshot = () => databaseDigest(ctx.handle);

    function urlOf(route: Route): string {
      return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (name === 'membership_id' && route.spec.caller === 'invited') return params.invited_membership_id!;
        return params[name] ?? `${name.replace(/_id$/, '')}-doesnotexist00000`;
      });
    }

    it('discovers every write route of the Teams side', () => {
      const found = new Set(routes.map((route) => `${route.method} ${route.path}`));
      for (const key of Object.keys(TEAMS_SIDE)) assert.ok(found.has(key), `write route not found in the OpenAPI document: ${key}`);
      assert.ok(routes.length >= Object.keys(TEAMS_SIDE).length);
    });

    it('property: only 4xx JSON:API errors, never 5xx, and the database is unchanged', async () => {
      const routeWithRequest = fc.constantFrom(...routes).chain((route) =>
        (route.spec.body === 'none' ? universal : fc.oneof(universal, documentMalformations(route.spec), documentMalformations(route.spec))).map(
          (request) => ({ route, request }),
        ),
      );
      await fc.assert(
        fc.asyncProperty(routeWithRequest, async ({ route, request }) => {
          const before = await snapshot();
          const caller = callers[route.spec.caller ?? 'owner']!;
          const response = await ctx.app.inject({
            method: route.method as 'POST',
            url: urlOf(route),
            headers: {
              authorization: `Bearer ${caller.token}`,
              ...(request.contentType ? { 'content-type': request.contentType } : {}),
            },
            payload: request.payload,
          });
          const where = `${route.method} ${route.path} with ${request.label}: ${response.statusCode} ${response.body.slice(0, 300)}`;
          assert.ok(response.statusCode >= 400 && response.statusCode < 500, where);
          assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/, where);
          const body = JSON.parse(response.body) as { errors?: Array<{ status?: string; title?: string }> };
          assert.ok(Array.isArray(body.errors) && body.errors.length > 0, where);
          for (const error of body.errors) {
            assert.equal(error.status, String(response.statusCode), where);
            assert.equal(typeof error.title, 'string', where);
          }
          assert.equal(await snapshot(), before, `the database changed after ${where}`);
        }),
        { numRuns: Number(process.env.MALFORMED_RUNS ?? 200) },
      );
    });

    it('each Teams-side route rejects each class of malformation at least once, leaving the database unchanged', async () => {
      const before = await snapshot();
      for (const route of routes.filter((r) => TEAMS_SIDE[`${r.method} ${r.path}`])) {
        const samples = fc.sample(route.spec.body === 'none' ? universal : fc.oneof(universal, documentMalformations(route.spec)), { numRuns: 25, seed: 42 });
        for (const request of samples) {
          const caller = callers[route.spec.caller ?? 'owner']!;
          const response = await ctx.app.inject({
            method: route.method as 'POST',
            url: urlOf(route),
            headers: { authorization: `Bearer ${caller.token}`, ...(request.contentType ? { 'content-type': request.contentType } : {}) },
            payload: request.payload,
          });
          const where = `${route.method} ${route.path} with ${request.label}: ${response.statusCode} ${response.body.slice(0, 300)}`;
          assert.ok(response.statusCode >= 400 && response.statusCode < 500, where);
          assert.ok(Array.isArray(JSON.parse(response.body).errors), where);
        }
      }
      assert.equal(await snapshot(), before, 'a malformed request changed the database');
    });
  });
}
