import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const tokenBody = (attributes: Record<string, unknown>) => ({ data: { type: 'authentication-tokens', attributes } });

for (const dialect of testDialects()) {
  describe(`a token's last-used-at (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    async function storedLastUsed(tokenId: string): Promise<string | null> {
      const row = await ctx.handle.db.selectFrom('tokens').select('last_used_at').where('id', '=', tokenId).executeTakeFirstOrThrow();
      return row.last_used_at;
    }

    it('is null until the token is used, then set, and a second use within the minute writes nothing', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const created = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'ci' }));
      assertStatus(created, 201);
      const tokenId: string = created.body.data.id;
      assert.equal(created.body.data.attributes['last-used-at'], null);
      const unused = await org.owner.api.get(`/authentication-tokens/${tokenId}`);
      assert.equal(unused.body.data.attributes['last-used-at'], null);

      const touches: string[] = [];
      const tokens = ctx.services.repositories.tokens;
      const touch = tokens.touch.bind(tokens);
      tokens.touch = async (id, at, staleBefore) => {
        if (id === tokenId) touches.push(at);
        return touch(id, at, staleBefore);
      };
      try {
        const before = Date.now();
        const teamApi = new ApiClient(ctx.app, created.body.data.attributes.token);
        assertStatus(await teamApi.get(`/teams/${team.id}`), 200);
        const shown = await org.owner.api.get(`/authentication-tokens/${tokenId}`);
        assertStatus(shown, 200);
        const lastUsed: string = shown.body.data.attributes['last-used-at'];
        assert.match(lastUsed, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(Date.parse(lastUsed) >= before - 1 && Date.parse(lastUsed) <= Date.now());
        // The team's own list shows it too.
        const listed = await org.owner.api.get(`/teams/${team.id}/authentication-tokens`);
        assert.equal(listed.body.data.find((token: any) => token.id === tokenId).attributes['last-used-at'], lastUsed);

        assertStatus(await teamApi.get(`/teams/${team.id}`), 200);
        assertStatus(await teamApi.get(`/teams/${team.id}`), 200);
        assert.equal(touches.length, 1, 'one write for three uses within the minute');
        assert.equal(await storedLastUsed(tokenId), lastUsed);
      } finally {
        tokens.touch = touch;
      }
    });

    it('the UPDATE itself moves only a time older than the minute (another node may have just written it)', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      const created = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, tokenBody({ description: 'nodes' }));
      const tokenId: string = created.body.data.id;
      const tokens = ctx.services.repositories.tokens;
      await tokens.touch(tokenId, '2026-01-01T00:00:00.000Z', '2025-12-31T23:59:00.000Z');
      await tokens.touch(tokenId, '2026-01-01T00:00:30.000Z', '2025-12-31T23:59:30.000Z');
      assert.equal(await storedLastUsed(tokenId), '2026-01-01T00:00:00.000Z');
      await tokens.touch(tokenId, '2026-01-01T00:01:01.000Z', '2026-01-01T00:00:01.000Z');
      assert.equal(await storedLastUsed(tokenId), '2026-01-01T00:01:01.000Z');
    });
  });
}
