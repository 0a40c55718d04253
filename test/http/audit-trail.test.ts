import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { anonymous, createOrganization, createTeam, siteAdmin, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const TRAIL = '/organization/audit-trail';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = any;

for (const dialect of testDialects()) {
  describe(`the organization audit trail (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    /** The organization's audit trail token, as a client. */
    async function auditReader(org: TestOrganization): Promise<ApiClient> {
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assertStatus(issued, 201);
      return new ApiClient(ctx.app, issued.body.data.attributes.token);
    }

    async function organizationToken(org: TestOrganization): Promise<{ id: string; api: ApiClient }> {
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(issued, 201);
      return { id: issued.body.data.id, api: new ApiClient(ctx.app, issued.body.data.attributes.token) };
    }

    /** Every entry of the trail, page by page. */
    async function trail(reader: ApiClient, query = ''): Promise<Entry[]> {
      const entries: Entry[] = [];
      for (let page = 1; ; page++) {
        const answer = await reader.get(`${TRAIL}?page[size]=100&page[number]=${page}${query}`);
        assertStatus(answer, 200);
        entries.push(...answer.body.data);
        if (answer.body.pagination.next_page === null) return entries;
      }
    }

    /** Entries about things of this type, the organization's own birth (its owners team) left out. */
    const ofType = (entries: Entry[], type: string) =>
      entries.filter((entry) => entry.resource.type === type && entry.resource.meta?.after?.name !== 'owners' && entry.resource.meta?.name !== 'owners');

    it('only the audit trail token reads it; every other token finds nothing there (404), no token is 401', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const answer = await reader.get(TRAIL);
      assertStatus(answer, 200);
      // So far: the organization's birth (its owners team, its creator the first member), then the audit trail token.
      assert.deepEqual(answer.body.data.map((entry: Entry) => [entry.resource.type, entry.resource.id, entry.resource.action]), [
        ['team', org.ownersTeamId, 'create'],
        ['team', org.ownersTeamId, 'add_members'],
        ['authentication_token', answer.body.data[2].resource.id, 'create'],
      ]);
      assert.deepEqual(answer.body.data[1].resource.meta.users, [org.owner.username]);
      assert.ok(answer.body.data.every((entry: Entry) => entry.auth.accessor_id === org.owner.id));
      assert.deepEqual(answer.body.pagination, { current_page: 1, prev_page: null, next_page: null, total_pages: 1, total_count: 3 });

      const orgToken = await organizationToken(org);
      const team = await createTeam(ctx, org, { 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
      const teamToken = await org.owner.api.post(`/teams/${team.id}/authentication-token`);
      assertStatus(teamToken, 201);
      const ownersToken = await org.owner.api.post(`/teams/${org.ownersTeamId}/authentication-token`);
      assertStatus(ownersToken, 201);
      for (const [who, client] of [
        ['the owner', org.owner.api],
        ['the organization token', orgToken.api],
        ['a team token', new ApiClient(ctx.app, teamToken.body.data.attributes.token)],
        ["the owners team's token", new ApiClient(ctx.app, ownersToken.body.data.attributes.token)],
        ['the site admin', siteAdmin(ctx)],
      ] as const) {
        assertError(await client.get(TRAIL), 404, /audit trail token/);
        assert.ok(who);
      }
      assertError(await anonymous(ctx).get(TRAIL), 401);
      assertError(await anonymous(ctx).as('not-a-token').get(TRAIL), 401);
      // Revoked, it reads nothing.
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/authentication-token?token=audit-trails`), 204);
      assertError(await reader.get(TRAIL), 401);
    });

    it("reads only its own organization's trail", async () => {
      const mine = await createOrganization(ctx);
      const theirs = await createOrganization(ctx);
      const reader = await auditReader(mine);
      await createTeam(ctx, theirs);
      const own = await createTeam(ctx, mine);
      const entries = ofType(await trail(reader), 'team');
      assert.deepEqual(entries.map((entry) => entry.resource.id), [own.id]);
      assert.ok(entries.every((entry) => entry.auth.organization_id === mine.name));
    });

    it("records a team's create, update and delete in HCP's shape, with the actor, the request and before/after", async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const created = await org.owner.api.post(`/organizations/${org.name}/teams`, {
        data: { type: 'teams', attributes: { name: 'platform', visibility: 'organization', 'organization-access': { 'read-workspaces': true } } },
      });
      assertStatus(created, 200);
      const teamId = created.body.data.id;
      const updated = await org.owner.api.patch(`/teams/${teamId}`, {
        data: { type: 'teams', attributes: { name: 'platform-2', visibility: 'secret', 'sso-team-id': 'sso-1', 'organization-access': { 'manage-workspaces': true } } },
      });
      assertStatus(updated, 200);
      // A PATCH that changes nothing the trail records leaves no entry.
      assertStatus(await org.owner.api.patch(`/teams/${teamId}`, { data: { type: 'teams', attributes: { visibility: 'secret' } } }), 200);
      assertStatus(await org.owner.api.delete(`/teams/${teamId}`), 204);

      const entries = ofType(await trail(reader), 'team');
      assert.deepEqual(entries.map((entry) => entry.resource.action), ['create', 'update', 'destroy']);
      const [create, update, destroy] = entries;
      for (const entry of entries) {
        assert.match(entry.id, /^[0-9a-f-]{36}$/);
        assert.equal(entry.version, '0');
        assert.equal(entry.type, 'Resource');
        assert.match(entry.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.deepEqual(entry.auth, { accessor_id: org.owner.id, description: org.owner.username, type: 'Client', impersonator_id: null, organization_id: org.name });
        assert.equal(entry.resource.id, teamId);
      }
      assert.equal(create.request.id, created.headers['x-request-id'], "the change's request, as its answer names it");
      assert.equal(update.request.id, updated.headers['x-request-id']);
      assert.equal(create.resource.meta.after.name, 'platform');
      assert.equal(create.resource.meta.after['organization-access']['read-workspaces'], true);
      assert.deepEqual(update.resource.meta.before, {
        name: 'platform', visibility: 'organization', 'organization-access': { 'manage-workspaces': false }, 'sso-team-id': null,
      });
      assert.deepEqual(update.resource.meta.after, {
        name: 'platform-2', visibility: 'secret', 'organization-access': { 'manage-workspaces': true }, 'sso-team-id': 'sso-1',
      });
      assert.equal(destroy.resource.meta.before.name, 'platform-2');
    });

    it('names the actor of each kind of token: a user, a team token (its service account), the organization token', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const orgToken = await organizationToken(org);
      const manager = await createTeam(ctx, org, { 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
      const issued = await org.owner.api.post(`/teams/${manager.id}/authentication-token`);
      assertStatus(issued, 201);
      const teamApi = new ApiClient(ctx.app, issued.body.data.attributes.token);
      const byTeam = await createTeam(ctx, org, { visibility: 'organization' }, teamApi);
      const byOrg = await createTeam(ctx, org, {}, orgToken.api);
      const account = await teamApi.get('/account/details');
      assertStatus(account, 200);

      const entries = ofType(await trail(reader), 'team').filter((entry) => entry.resource.action === 'create');
      const auth = (teamId: string) => entries.find((entry) => entry.resource.id === teamId)!.auth;
      assert.equal(auth(manager.id).accessor_id, org.owner.id);
      assert.equal(auth(byTeam.id).accessor_id, account.body.data.id);
      assert.equal(auth(byTeam.id).description, account.body.data.attributes.username);
      assert.match(auth(byTeam.id).description, /^api-team_/);
      assert.equal(auth(byOrg.id).accessor_id, orgToken.id, 'a token that is no user is named by its id');
      assert.equal(auth(byOrg.id).description, `api-org_${org.name}`);
    });

    it('a change refused or rolled back leaves no entry; an entry that cannot be written takes its change with it', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const team = await createTeam(ctx, org, { name: 'kept' });
      await createTeam(ctx, org, { name: 'taken' });
      // Refused inside the write (a taken name, the owners team's rules): nothing recorded.
      assertError(await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { name: 'TAKEN' } } }), 422);
      assertError(await org.owner.api.patch(`/teams/${org.ownersTeamId}`, { data: { type: 'teams', attributes: { name: 'renamed' } } }), 422);
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'Kept' } } }), 422);
      const before = await trail(reader);
      assert.equal(ofType(before, 'team').length, 2);

      // With the trail unwritable, the change it records is not made either.
      await sql`alter table audit_trail rename to audit_trail_away`.execute(ctx.handle.db);
      try {
        const refused = await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { name: 'lost' } } });
        assert.equal(refused.status, 500, refused.text);
        const deleted = await org.owner.api.delete(`/teams/${team.id}`);
        assert.equal(deleted.status, 500, deleted.text);
      } finally {
        await sql`alter table audit_trail_away rename to audit_trail`.execute(ctx.handle.db);
      }
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.name, 'kept');
      assert.deepEqual((await trail(reader)).map((entry) => entry.id), before.map((entry) => entry.id));
    });

    it('since keeps entries after a time (422 on a bad value); pages carry HCP pagination and links', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      // The owners team's birth (two entries) and the audit trail token's creation, so far.
      const all = await trail(reader);
      assert.equal(all.length, 3);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const later = await createTeam(ctx, org);

      const first = await reader.get(`${TRAIL}?page%5Bsize%5D=2`);
      assertStatus(first, 200);
      assert.deepEqual(first.body.pagination, { current_page: 1, prev_page: null, next_page: 2, total_pages: 2, total_count: 4 });
      assert.equal(first.body.meta.pagination['total-count'], 4);
      assert.match(first.body.links.next, /page%5Bnumber%5D=2/);
      const second = await reader.get(`${TRAIL}?page[size]=2&page[number]=2`);
      assert.deepEqual(second.body.pagination, { current_page: 2, prev_page: 1, next_page: null, total_pages: 2, total_count: 4 });
      assert.deepEqual([...first.body.data, ...second.body.data].map((entry: Entry) => entry.id), [...all.map((entry) => entry.id), second.body.data[1].id]);
      assert.deepEqual((await reader.get(`${TRAIL}?page[number]=9`)).body.data, []);

      const since = all[2].timestamp;
      const after = await reader.get(`${TRAIL}?since=${encodeURIComponent(since)}`);
      assertStatus(after, 200);
      assert.deepEqual(after.body.data.map((entry: Entry) => entry.resource.id), [later.id]);
      // The same instant in another zone; a + that arrived unencoded (a space) counts as the +.
      const shifted = new Date(Date.parse(since) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      assert.deepEqual((await reader.get(`${TRAIL}?since=${encodeURIComponent(shifted)}`)).body.data.length, 1);
      assert.deepEqual((await reader.get(`${TRAIL}?since=${shifted.replace('+', '%20')}`)).body.data.length, 1);
      assert.equal((await reader.get(`${TRAIL}?since=2000-01-01T00:00:00Z`)).body.data.length, 4);

      for (const bad of ['yesterday', '2026-13-45T00:00:00Z', '2026-01-02', '2026-01-02T03:04:05', '1700000000']) {
        const error = assertError(await reader.get(`${TRAIL}?since=${encodeURIComponent(bad)}`), 422, /since must be an ISO 8601 time/);
        assert.deepEqual(error.source, { parameter: 'since' }, bad);
      }
      assertError(await reader.get(`${TRAIL}?page[size]=101`), 422, /page\[size\]/);
      // Access is decided first: another token learns nothing of its parameters.
      assertError(await org.owner.api.get(`${TRAIL}?since=bad`), 404);
    });

    it('is in the OpenAPI document with its parameters and answer', async () => {
      const docs = await anonymous(ctx).get('/api/docs');
      const operation = docs.body.paths['/api/v2/organization/audit-trail']?.get;
      assert.ok(operation, 'documented');
      assert.ok(operation.responses['200'].content['application/json'].schema.properties.pagination);
    });
  });
}
