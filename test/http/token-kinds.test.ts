import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createTeam, createUser, siteAdmin, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const AUDIT = '?token=audit-trails';
const twoYearsFrom = (iso: string) => {
  const date = new Date(iso);
  date.setUTCFullYear(date.getUTCFullYear() + 2);
  return date.getTime();
};

for (const dialect of testDialects()) {
  describe(`token kinds, shapes and expiry (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    /** Every token create endpoint, as a function of a fresh organization. */
    const creates: Record<string, (org: TestOrganization) => Promise<string>> = {
      user: async (org) => `/users/${org.owner.id}/authentication-tokens`,
      organization: async (org) => `/organizations/${org.name}/authentication-token`,
      'audit trail': async (org) => `/organizations/${org.name}/authentication-token${AUDIT}`,
      'legacy team': async (org) => `/teams/${(await createTeam(ctx, org)).id}/authentication-token`,
      team: async (org) => `/teams/${(await createTeam(ctx, org)).id}/authentication-tokens`,
    };

    it('the audit trail token is its own kind: it coexists with the organization token and each delete touches only its own', async () => {
      const org = await createOrganization(ctx);
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(orgToken, 201);
      const orgApi = new ApiClient(ctx.app, orgToken.body.data.attributes.token);
      assertError(await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`), 404);

      const audit = await org.owner.api.post(`/organizations/${org.name}/authentication-token${AUDIT}`);
      assertStatus(audit, 201);
      assert.notEqual(audit.body.data.id, orgToken.body.data.id);
      // Minting it did not revoke the organization token.
      assertStatus(await orgApi.get(`/organizations/${org.name}/teams`), 200);
      const shownAudit = await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`);
      assertStatus(shownAudit, 200);
      assert.equal(shownAudit.body.data.id, audit.body.data.id);
      assert.equal(shownAudit.body.data.attributes.token, undefined, 'never the secret again');
      const shownOrg = await org.owner.api.get(`/organizations/${org.name}/authentication-token`);
      assert.equal(shownOrg.body.data.id, orgToken.body.data.id);

      // A new organization token replaces only the organization token.
      const orgToken2 = await org.owner.api.post(`/organizations/${org.name}/authentication-token`, { data: { type: '' } });
      assertStatus(orgToken2, 201);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`)).body.data.id, audit.body.data.id);

      // Deleting the audit trail token leaves the organization token working; a second delete is 404.
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/authentication-token${AUDIT}`), 204);
      assertError(await org.owner.api.delete(`/organizations/${org.name}/authentication-token${AUDIT}`), 404);
      assertError(await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`), 404);
      const orgApi2 = new ApiClient(ctx.app, orgToken2.body.data.attributes.token);
      assertStatus(await orgApi2.get(`/organizations/${org.name}/teams`), 200);

      // And the other way round.
      const audit2 = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit_trails`, {});
      assertStatus(audit2, 201);
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/authentication-token`), 204);
      assertError(await orgApi2.get(`/organizations/${org.name}/teams`), 401);
      assertError(await org.owner.api.delete(`/organizations/${org.name}/authentication-token`), 404);
      assertError(await org.owner.api.get(`/organizations/${org.name}/authentication-token`), 404);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`)).body.data.id, audit2.body.data.id);

      assertError(await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=owner`), 400, /token parameter/);
    });

    it('the audit trail token reads nothing else: every other endpoint answers 401', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const workspace = await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'ws' } } });
      assertStatus(workspace, 201);
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token${AUDIT}`);
      assertStatus(issued, 201);
      const audit = new ApiClient(ctx.app, issued.body.data.attributes.token);
      const reads = [
        `/account/details`,
        `/organizations`,
        `/organizations/${org.name}`,
        `/organizations/${org.name}/teams`,
        `/teams/${team.id}`,
        `/organizations/${org.name}/organization-memberships`,
        `/organizations/${org.name}/workspaces`,
        `/workspaces/${workspace.body.data.id}`,
        `/workspaces/${workspace.body.data.id}/runs`,
        `/organizations/${org.name}/tasks`,
        `/organizations/${org.name}/authentication-token${AUDIT}`,
        `/organizations/${org.name}/entitlement-set`,
        `/admin/users`,
      ];
      for (const path of reads) assertError(await audit.get(path), 401, /audit trail/);
      assertError(await audit.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'x' } } }), 401);
      assertError(await audit.post(`/organizations/${org.name}/authentication-token${AUDIT}`), 401);
      assertError(await audit.delete(`/organizations/${org.name}/authentication-token`), 401);
      // It is still there and usable for what it is for (the owner can see it).
      assertStatus(await org.owner.api.get(`/organizations/${org.name}/authentication-token${AUDIT}`), 200);
    });

    it('every token create takes no body, no type, an empty type or authentication-tokens; another type is 422', async () => {
      const org = await createOrganization(ctx);
      for (const [kind, pathOf] of Object.entries(creates)) {
        const bodies: unknown[] = [undefined, {}, { data: {} }, { data: { type: '' } }, { data: { type: '', attributes: {} } }, { data: { type: 'authentication-tokens' } }];
        for (const [index, body] of bodies.entries()) {
          const path = await pathOf(org);
          // The multi-token team endpoint needs a unique description per team; fresh teams give that.
          const created = await org.owner.api.post(path, body);
          assert.equal(created.status, 201, `${kind} #${index}: ${created.text}`);
          assert.equal(typeof created.body.data.attributes.token, 'string');
        }
        const wrong = await org.owner.api.post(await pathOf(org), { data: { type: 'teams' } });
        assert.equal(wrong.status, 422, `${kind}: ${wrong.text}`);
      }
    });

    it('expired-at on every kind: echoed when in the future, 422 in the past, two years when absent; an expired token is 401', async () => {
      const org = await createOrganization(ctx);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      for (const [kind, pathOf] of Object.entries(creates)) {
        const past = await org.owner.api.post(await pathOf(org), { data: { type: 'authentication-tokens', attributes: { 'expired-at': '2020-01-01T00:00:00Z' } } });
        assert.equal(assertError(past, 422, /future/).source?.pointer, '/data/attributes/expired-at', kind);
        const garbage = await org.owner.api.post(await pathOf(org), { data: { attributes: { 'expired-at': 'tomorrow' } } });
        assert.equal(assertError(garbage, 422).source?.pointer, '/data/attributes/expired-at', kind);

        const dated = await org.owner.api.post(await pathOf(org), { data: { type: '', attributes: { 'expired-at': future } } });
        assert.equal(dated.status, 201, `${kind}: ${dated.text}`);
        assert.equal(dated.body.data.attributes['expired-at'], future, kind);

        const undated = await org.owner.api.post(await pathOf(org));
        assert.equal(undated.status, 201, `${kind}: ${undated.text}`);
        const { 'created-at': createdAt, 'expired-at': expiredAt } = undated.body.data.attributes;
        assert.ok(Math.abs(Date.parse(expiredAt) - twoYearsFrom(createdAt)) < 60_000, `${kind}: ${createdAt} -> ${expiredAt}`);

        // Past its expiry a token of this kind authenticates nothing.
        await ctx.handle.db.updateTable('tokens').set({ expired_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', dated.body.data.id).execute();
        await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
        assertError(await new ApiClient(ctx.app, dated.body.data.attributes.token).get('/account/details'), 401, /expired/);
      }
    });

    it('a user token asked to expire in 2020 is refused, and one for the site admin to make too', async () => {
      const user = await createUser(ctx);
      const refused = await siteAdmin(ctx).post(`/users/${user.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'old', 'expired-at': '2020-06-01T00:00:00Z' } },
      });
      assertError(refused, 422, /future/);
      const listed = await user.api.get(`/users/${user.id}/authentication-tokens`);
      assert.ok(!listed.body.data.some((token: any) => token.attributes.description === 'old'), 'nothing was created');
    });

    it('the legacy team token: GET shows its metadata (never the secret), 404 when none; DELETE 404 when none', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org);
      assertError(await org.owner.api.get(`/teams/${team.id}/authentication-token`), 404);
      assertError(await org.owner.api.delete(`/teams/${team.id}/authentication-token`), 404);
      // A token of the several-per-team kind is not the legacy one.
      assertStatus(await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { attributes: { description: 'ci' } } }), 201);
      assertError(await org.owner.api.get(`/teams/${team.id}/authentication-token`), 404);

      const future = new Date(Date.now() + 86_400_000).toISOString();
      const issued = await org.owner.api.post(`/teams/${team.id}/authentication-token`, { data: { type: '', attributes: { 'expired-at': future } } });
      assertStatus(issued, 201);
      const shown = await org.owner.api.get(`/teams/${team.id}/authentication-token`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.id, issued.body.data.id);
      assert.equal(shown.body.data.type, 'authentication-tokens');
      assert.equal(shown.body.data.attributes.token, undefined);
      assert.ok(!shown.text.includes(issued.body.data.attributes.token), 'the secret is nowhere in the answer');
      assert.equal(shown.body.data.attributes['expired-at'], future);
      assert.equal(shown.body.data.relationships.team.data.id, team.id);

      // A plain member of another team may not read it (the team is secret: 404).
      const other = await createUser(ctx);
      assertError(await other.api.get(`/teams/${team.id}/authentication-token`), 404);

      assertStatus(await org.owner.api.delete(`/teams/${team.id}/authentication-token`), 204);
      assertError(await org.owner.api.get(`/teams/${team.id}/authentication-token`), 404);
      assertError(await org.owner.api.delete(`/teams/${team.id}/authentication-token`), 404);
      // The several-per-team token is untouched.
      assert.equal((await org.owner.api.get(`/teams/${team.id}/authentication-tokens`)).body.data.length, 1);
    });

    it("an organization's team tokens: every team's, both kinds, filtered by team name, sorted by expiry, for owners only", async () => {
      const org = await createOrganization(ctx);
      const alpha = await createTeam(ctx, org, { name: `alpha-${Date.now()}` });
      const beta = await createTeam(ctx, org, { name: `beta-${Date.now()}` });
      const inOneDay = new Date(Date.now() + 86_400_000).toISOString();
      const inTwoDays = new Date(Date.now() + 2 * 86_400_000).toISOString();
      const legacy = await org.owner.api.post(`/teams/${alpha.id}/authentication-token`, { data: { type: '', attributes: { 'expired-at': inOneDay } } });
      const described = await org.owner.api.post(`/teams/${beta.id}/authentication-tokens`, { data: { attributes: { description: 'ci', 'expired-at': inTwoDays } } });
      // Not team tokens: the organization's own, and another organization's team token.
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/authentication-token`), 201);
      const other = await createOrganization(ctx);
      assertStatus(await other.owner.api.post(`/teams/${(await createTeam(ctx, other)).id}/authentication-token`), 201);

      const all = await org.owner.api.get(`/organizations/${org.name}/team-tokens`);
      assertStatus(all, 200);
      assert.deepEqual(all.body.data.map((token: any) => token.id).sort(), [legacy.body.data.id, described.body.data.id].sort());
      assert.ok(all.body.data.every((token: any) => token.attributes.token === undefined && token.relationships.team.data.id));
      assert.equal(all.body.meta.pagination['total-count'], 2);

      const byName = await org.owner.api.get(`/organizations/${org.name}/team-tokens?q=${alpha.name.toUpperCase()}`);
      assert.deepEqual(byName.body.data.map((token: any) => token.id), [legacy.body.data.id]);
      const soonest = await org.owner.api.get(`/organizations/${org.name}/team-tokens?sort=expired-at`);
      assert.deepEqual(soonest.body.data.map((token: any) => token.id), [legacy.body.data.id, described.body.data.id]);
      const latest = await org.owner.api.get(`/organizations/${org.name}/team-tokens?sort=-expired-at`);
      assert.deepEqual(latest.body.data.map((token: any) => token.id), [described.body.data.id, legacy.body.data.id]);
      const paged = await org.owner.api.get(`/organizations/${org.name}/team-tokens?sort=expired-at&page%5Bsize%5D=1&page%5Bnumber%5D=2`);
      assert.deepEqual(paged.body.data.map((token: any) => token.id), [described.body.data.id]);
      assertError(await org.owner.api.get(`/organizations/${org.name}/team-tokens?sort=name`), 400, /cannot sort team tokens/);

      // Not for members who are not owners, nor for outsiders (the organization is hidden from them).
      const member = await addMember(ctx, org);
      assertError(await member.api.get(`/organizations/${org.name}/team-tokens`), 404);
      assertError(await other.owner.api.get(`/organizations/${org.name}/team-tokens`), 404);
    });
  });
}
