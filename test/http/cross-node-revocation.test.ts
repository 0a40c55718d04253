/**
 * Two nodes on one database (issue 39): a credential and the caller's standing are read from the database on
 * every request, never cached on a node, so a token revoked or a membership removed through one node is
 * refused by the other on its very next request. This fails if any node keeps a credential or standing cache
 * without an invalidation that reaches every node at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../../src/app.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { ApiClient } from '../helpers/api-client.js';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

// Two nodes share a database only on PostgreSQL (SQLite is one node's file).
const dialects = process.env.TEAMSTAGE_TEST_PG_URL ? (['postgres'] as const) : [];

for (const dialect of dialects) {
  describe(`revocation across nodes (${dialect})`, () => {
    let ctx: TestContext;
    let handle: DatabaseHandle;
    let other: App;
    before(async () => {
      ctx = await createTestApp(dialect);
      handle = openDatabase(ctx.config.databaseUrl);
      ({ app: other } = await buildApp({ config: { ...ctx.config, jobs: { ...ctx.config.jobs, enabled: false } }, handle, logger: false }));
    });
    after(async () => {
      await other.close();
      await handle.close();
      await ctx.close();
    });

    it('a team token revoked on one node is refused by the other on its next request', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const created = await org.owner.api.post(`/teams/${team.id}/authentication-token`);
      assert.equal(created.status, 201, created.text);
      const onOther = new ApiClient(other, created.body.data.attributes.token);
      // Used on the other node first, so whatever it would keep of the token, it has.
      assert.equal((await onOther.get(`/teams/${team.id}`)).status, 200);
      assert.equal((await org.owner.api.delete(`/teams/${team.id}/authentication-token`)).status, 204);
      assert.equal((await onOther.get(`/teams/${team.id}`)).status, 401);
    });

    it('a member removed from a secret team on one node no longer sees it on the other', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'secret' });
      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      const onOther = new ApiClient(other, member.token);
      assert.equal((await onOther.get(`/teams/${team.id}`)).status, 200);
      const removed = await org.owner.api.delete(`/teams/${team.id}/relationships/users`, { data: [{ type: 'users', id: member.username }] });
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await onOther.get(`/teams/${team.id}`)).status, 404);
    });
  });
}
