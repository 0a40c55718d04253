import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const TRAIL = '/organization/audit-trail';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = any;

/**
 * Teamstage's audit trail filters (docs/audit-trail.md): `filter[actor]` keeps one actor's entries (by name or
 * id), `filter[type]` those of some resource types; together they narrow both; a type the trail never records
 * or an overlong actor is a 422 naming the parameter; the filters stay in the page links.
 */
for (const dialect of testDialects()) {
  describe(`the audit trail's filters by actor and type (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    async function auditReader(org: TestOrganization): Promise<ApiClient> {
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assertStatus(issued, 201);
      return new ApiClient(ctx.app, issued.body.data.attributes.token);
    }

    async function read(reader: ApiClient, query: string): Promise<Entry> {
      const answer = await reader.get(`${TRAIL}?page[size]=100&${query}`);
      assertStatus(answer, 200);
      return answer.body;
    }

    it('keeps the entries of one actor (by name or by id), of some types, or both', async () => {
      const org = await createOrganization(ctx);
      const manager = await addMember(ctx, org);
      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
      await addToTeam(org, managers.id, manager.username);
      const made = await manager.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'made-by-manager' } } });
      assertStatus(made, 200);
      const reader = await auditReader(org);

      const all = (await read(reader, '')).data as Entry[];
      const byManager = all.filter((entry) => entry.auth.description === manager.username);
      assert.ok(byManager.length > 0 && byManager.length < all.length, 'the trail holds entries of two actors');

      const byName = await read(reader, `filter[actor]=${manager.username}`);
      assert.deepEqual(byName.data.map((entry: Entry) => entry.id), byManager.map((entry) => entry.id));
      assert.equal(byName.pagination.total_count, byManager.length);
      const byId = await read(reader, `filter[actor]=${manager.id}`);
      assert.deepEqual(byId.data.map((entry: Entry) => entry.id), byManager.map((entry) => entry.id));

      const memberships = await read(reader, 'filter[type]=organization_membership');
      assert.ok(memberships.data.length > 0);
      assert.ok(memberships.data.every((entry: Entry) => entry.resource.type === 'organization_membership'));
      assert.equal(memberships.data.length, all.filter((entry) => entry.resource.type === 'organization_membership').length);

      const twoTypes = await read(reader, 'filter[type]=organization_membership,authentication_token');
      assert.equal(twoTypes.data.length, all.filter((entry) => ['organization_membership', 'authentication_token'].includes(entry.resource.type)).length);

      const both = await read(reader, `filter[actor]=${manager.username}&filter[type]=team`);
      assert.deepEqual(both.data.map((entry: Entry) => [entry.resource.type, entry.resource.meta?.after?.name]), [['team', 'made-by-manager']]);
      assert.equal((await read(reader, 'filter[actor]=nobody-at-all')).pagination.total_count, 0);
      // Empty filters filter nothing.
      assert.equal((await read(reader, 'filter[actor]=&filter[type]=')).pagination.total_count, all.length);
    });

    it('keeps the filters in the page links', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const answer = await reader.get(`${TRAIL}?page[size]=1&filter[type]=team`);
      assertStatus(answer, 200);
      assert.equal(answer.body.pagination.total_count, 2);
      assert.match(decodeURIComponent(answer.body.links.next), /filter\[type\]=team/);
    });

    it('answers a type the trail never records, or an overlong actor, with a 422 naming the parameter', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const badType = assertError(await reader.get(`${TRAIL}?filter[type]=team,workspaces`), 422, /filter\[type\] must be one or more of team, organization_membership/);
      assert.deepEqual(badType.source, { parameter: 'filter[type]' });
      const badActor = assertError(await reader.get(`${TRAIL}?filter[actor]=${'a'.repeat(256)}`), 422, /filter\[actor\]/);
      assert.deepEqual(badActor.source, { parameter: 'filter[actor]' });
      // Another token still finds no trail, filter or not (404 before any parameter).
      assertError(await org.owner.api.get(`${TRAIL}?filter[type]=nonsense`), 404);
    });
  });
}
