import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { anonymous, createOrganization, createTeam, createUser, siteAdmin, unique } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`identity: site token, users, user tokens, account details (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('the site token administers users: create 201 type users, list, duplicates and bad names 422', async () => {
      const admin = siteAdmin(ctx);
      const username = unique('alice');
      const created = await admin.post('/admin/users', { data: { type: 'users', attributes: { username, email: `${username}@example.test` } } });
      assertStatus(created, 201);
      assert.equal(created.body.data.type, 'users');
      assert.match(created.body.data.id, /^user-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(created.body.data.attributes.username, username);
      assert.equal(created.body.data.attributes.email, `${username}@example.test`);
      assert.match(created.body.data.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const again = await admin.post('/admin/users', { data: { type: 'users', attributes: { username: username.toUpperCase(), email: 'x@example.test' } } });
      assert.equal(assertError(again, 422).source?.pointer, '/data/attributes/username');
      const sameEmail = await admin.post('/admin/users', { data: { type: 'users', attributes: { username: unique('bob'), email: `${username}@EXAMPLE.test` } } });
      assert.equal(assertError(sameEmail, 422).source?.pointer, '/data/attributes/email');
      const badName = await admin.post('/admin/users', { data: { type: 'users', attributes: { username: 'no spaces', email: 'y@example.test' } } });
      assert.equal(assertError(badName, 422).source?.pointer, '/data/attributes/username');
      const badEmail = await admin.post('/admin/users', { data: { type: 'users', attributes: { username: unique('carol'), email: 'not-an-email' } } });
      assert.equal(assertError(badEmail, 422).source?.pointer, '/data/attributes/email');

      const listed = await admin.get('/admin/users?page[size]=100');
      assertStatus(listed, 200);
      assert.ok(listed.body.data.some((user: { id: string }) => user.id === created.body.data.id));
      assert.equal(listed.body.meta.pagination['total-count'], listed.body.data.length);
    });

    it('only the site admin reaches /admin/users (404 for a user token)', async () => {
      const user = await createUser(ctx);
      assertError(await user.api.get('/admin/users'), 404);
      assertError(await user.api.post('/admin/users', { data: { type: 'users', attributes: { username: unique('x'), email: 'z@example.test' } } }), 404);
    });

    it('a user token is issued once (201, authentication-tokens), stored only as a hash, and authenticates', async () => {
      const user = await createUser(ctx);
      const issued = await user.api.post(`/users/${user.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'laptop' } } });
      assertStatus(issued, 201);
      assert.equal(issued.body.data.type, 'authentication-tokens');
      assert.match(issued.body.data.id, /^at-/);
      const secret = issued.body.data.attributes.token as string;
      assert.ok(secret.length >= 43, 'at least 32 bytes of entropy in text form');
      assert.notEqual(secret, user.token);
      assert.equal(issued.body.data.attributes.description, 'laptop');

      const stored = await ctx.handle.db.selectFrom('tokens').select(['token_hash']).where('id', '=', issued.body.data.id).executeTakeFirstOrThrow();
      assert.equal(stored.token_hash, createHash('sha256').update(secret).digest('hex'));
      const anyPlain = await ctx.handle.db.selectFrom('tokens').select('id').where('token_hash', '=', secret).executeTakeFirst();
      assert.equal(anyPlain, undefined);

      const me = await new ApiClient(ctx.app, secret).get('/account/details');
      assertStatus(me, 200);
      assert.equal(me.body.data.id, user.id);

      const listed = await user.api.get(`/users/${user.id}/authentication-tokens`);
      assertStatus(listed, 200);
      assert.equal(listed.body.data.length, 2);
      for (const token of listed.body.data) assert.equal(token.attributes.token, undefined, 'a secret is never shown again');
    });

    it("another user cannot issue or list a user's tokens (404); the site admin can issue", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      assertError(await bob.api.post(`/users/${alice.id}/authentication-tokens`, {}), 404);
      assertError(await bob.api.get(`/users/${alice.id}/authentication-tokens`), 404);
      assertStatus(await siteAdmin(ctx).post(`/users/${alice.id}/authentication-tokens`), 201);
      assertError(await siteAdmin(ctx).post('/users/user-doesnotexist0000/authentication-tokens', {}), 404);
    });

    it('GET /admin/users: q matches username or email (any case), filter[admin] and filter[suspended] (no user is either); bad values 422', async () => {
      const admin = siteAdmin(ctx);
      const tag = unique('findme').toLowerCase();
      const byName = await createUser(ctx, `${tag}-name`);
      const other = await createUser(ctx);
      const byEmail = await admin.post('/admin/users', { data: { type: 'users', attributes: { username: unique('mail'), email: `${tag}@example.test` } } });
      assertStatus(byEmail, 201);
      const found = await admin.get(`/admin/users?q=${tag.toUpperCase()}`);
      assertStatus(found, 200);
      assert.deepEqual(found.body.data.map((user: { id: string }) => user.id).sort(), [byName.id, byEmail.body.data.id].sort());
      assert.equal(found.body.meta.pagination['total-count'], 2);
      const everyone = await admin.get('/admin/users?filter%5Badmin%5D=false&filter%5Bsuspended%5D=false&page%5Bsize%5D=100');
      assert.ok(everyone.body.data.some((user: { id: string }) => user.id === other.id));
      const admins = await admin.get('/admin/users?filter%5Badmin%5D=true');
      assertStatus(admins, 200);
      assert.deepEqual(admins.body.data, []);
      assert.deepEqual((await admin.get('/admin/users?filter%5Bsuspended%5D=true')).body.data, []);
      assertError(await admin.get('/admin/users?filter%5Badmin%5D=yes'), 422);
    });

    it('/account/details answers for a user, the site admin, a team token and an organization token', async () => {
      const org = await createOrganization(ctx);
      const me = await org.owner.api.get('/account/details');
      assertStatus(me, 200);
      assert.equal(me.body.data.type, 'users');
      assert.equal(me.body.data.attributes.username, org.owner.username);
      assert.equal(me.body.data.attributes.email, org.owner.email);
      assert.equal(me.body.data.attributes['is-service-account'], false);
      assert.equal(me.body.data.attributes['is-site-admin'], false);
      // HCP's avatar: the Gravatar URL of the email's MD5 (go-tfe's TestUsersReadCurrent wants one).
      const emailHash = createHash('md5').update(org.owner.email.toLowerCase()).digest('hex');
      assert.equal(me.body.data.attributes['avatar-url'], `https://www.gravatar.com/avatar/${emailHash}?s=100&d=mm`);

      const admin = await siteAdmin(ctx).get('/account/details');
      assertStatus(admin, 200);
      assert.equal(admin.body.data.attributes['is-site-admin'], true);

      const team = await createTeam(ctx, org);
      const teamToken = await org.owner.api.post(`/teams/${team.id}/authentication-token`);
      assertStatus(teamToken, 201);
      const asTeam = await new ApiClient(ctx.app, teamToken.body.data.attributes.token).get('/account/details');
      assertStatus(asTeam, 200);
      assert.equal(asTeam.body.data.attributes.username, `api-team_${team.id.slice('team-'.length)}`);
      assert.equal(asTeam.body.data.attributes['is-service-account'], true);

      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(orgToken, 201);
      const asOrg = await new ApiClient(ctx.app, orgToken.body.data.attributes.token).get('/account/details');
      assertStatus(asOrg, 200);
      assert.equal(asOrg.body.data.attributes.username, `api-org-${org.name}`);
      assert.equal(asOrg.body.data.attributes['is-service-account'], true);
    });

    it('401 for a missing, malformed, unknown, expired or revoked token', async () => {
      assertError(await anonymous(ctx).get('/account/details'), 401);
      assertError(await anonymous(ctx).get('/account/details', { authorization: 'Basic Zm9vOmJhcg==' }), 401);
      assertError(await anonymous(ctx).get('/account/details', { authorization: 'Bearer' }), 401);
      assertError(await new ApiClient(ctx.app, 'x'.repeat(40)).get('/account/details'), 401);
      assertError(await new ApiClient(ctx.app, 'y'.repeat(5000)).get('/account/details'), 401);

      const user = await createUser(ctx);
      const issued = await user.api.post(`/users/${user.id}/authentication-tokens`);
      const secret = issued.body.data.attributes.token as string;
      const client = new ApiClient(ctx.app, secret);
      assertStatus(await client.get('/account/details'), 200);
      // Expired: the token row's expiry passes.
      await ctx.handle.db.updateTable('tokens').set({ expired_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', issued.body.data.id).execute();
      await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
      assertError(await client.get('/account/details'), 401);
      await ctx.handle.db.updateTable('tokens').set({ expired_at: null }).where('id', '=', issued.body.data.id).execute();
      await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
      assertStatus(await client.get('/account/details'), 200);
      // Revoked through the API.
      assertStatus(await user.api.delete(`/authentication-tokens/${issued.body.data.id}`), 204);
      assertError(await client.get('/account/details'), 401);
      assertStatus(await user.api.get('/account/details'), 200);
    });

    it('a team token with expired-at stops working when it passes', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const issued = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'short', 'expired-at': expiresAt } },
      });
      assertStatus(issued, 201);
      assert.equal(issued.body.data.attributes['expired-at'], expiresAt);
      const client = new ApiClient(ctx.app, issued.body.data.attributes.token);
      assertStatus(await client.get(`/teams/${team.id}`), 200);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      assertError(await client.get(`/teams/${team.id}`), 401);
    });
  });
}
