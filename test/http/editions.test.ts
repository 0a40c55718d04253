import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createTeam, siteAdmin } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const subscription = (featureSetId: string) => ({
  data: { type: 'subscriptions', relationships: { 'feature-set': { data: { id: featureSetId, type: 'feature-sets' } } } },
});

for (const dialect of testDialects()) {
  describe(`editions: feature sets, subscriptions, entitlements (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('the site admin lists feature sets, filtered by q', async () => {
      const all = await siteAdmin(ctx).get('/admin/feature-sets');
      assertStatus(all, 200);
      const names = all.body.data.map((set: any) => set.attributes.name);
      for (const name of ['Free', 'Standard', 'Business']) assert.ok(names.includes(name), name);
      assert.ok(all.body.data.every((set: any) => set.type === 'feature-sets'));
      const filtered = await siteAdmin(ctx).get('/admin/feature-sets?q=BUS');
      assert.deepEqual(filtered.body.data.map((set: any) => set.attributes.name), ['Business']);
      assert.equal(filtered.body.meta.pagination['total-count'], 1);
      const org = await createOrganization(ctx);
      assertError(await org.owner.api.get('/admin/feature-sets'), 404);
    });

    it('new organizations get Business by default: teams, no run task limits', async () => {
      const org = await createOrganization(ctx);
      const entitlements = await org.owner.api.get(`/organizations/${org.name}/entitlement-set`);
      assertStatus(entitlements, 200);
      assert.equal(entitlements.body.data.type, 'entitlement-sets');
      assert.equal(entitlements.body.data.attributes.teams, true);
      assert.equal(entitlements.body.data.attributes['run-tasks'], true);
      assert.equal(entitlements.body.data.attributes['run-task-limit'], null);
      assert.equal(entitlements.body.data.attributes['run-task-workspace-limit'], null);
    });

    it('Free: no teams besides owners (create 404; hidden from members, owners still list and show them); back to Business restores them', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const member = await addMember(ctx, org);
      const free = (await siteAdmin(ctx).get('/admin/feature-sets?q=free')).body.data[0];
      const subscribed = await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, subscription(free.id));
      assert.ok(subscribed.status >= 200 && subscribed.status < 300, subscribed.text);

      const entitlements = await org.owner.api.get(`/organizations/${org.name}/entitlement-set`);
      assert.equal(entitlements.body.data.attributes.teams, false);
      assert.equal(entitlements.body.data.attributes['run-task-limit'], 1);
      assert.equal(entitlements.body.data.attributes['run-task-workspace-limit'], 10);

      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'nope' } } }), 404);
      // Owners still list and show the teams the edition hides; members see none of them.
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((t: any) => t.attributes.name).sort(), ['owners', team.name].sort());
      assert.equal(listed.body.meta.pagination['total-count'], 2);
      assertStatus(await org.owner.api.get(`/teams/${team.id}`), 200);
      assertStatus(await org.owner.api.get(`/teams/${org.ownersTeamId}`), 200);
      const seenByMember = await member.api.get(`/organizations/${org.name}/teams`);
      assertStatus(seenByMember, 200);
      assert.deepEqual(seenByMember.body.data, []);
      assertError(await member.api.get(`/teams/${team.id}`), 404);

      const business = await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, subscription('fs-business'));
      assert.ok(business.status >= 200 && business.status < 300);
      assertStatus(await org.owner.api.get(`/teams/${team.id}`), 200);
      assertStatus(await member.api.get(`/teams/${team.id}`), 200);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'now-yes' } } }), 200);
    });

    it('subscriptions: site admin only (404), unknown organization 404, unknown feature set 422', async () => {
      const org = await createOrganization(ctx);
      assertError(await org.owner.api.post(`/admin/organizations/${org.name}/subscription`, subscription('fs-free')), 404);
      assertError(await siteAdmin(ctx).post('/admin/organizations/no-such-org/subscription', subscription('fs-free')), 404);
      assertError(await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, subscription('fs-platinum')), 422);
      assertError(await siteAdmin(ctx).post(`/admin/organizations/${org.name}/subscription`, { data: { type: 'subscriptions' } }), 422);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/entitlement-set`)).body.data.attributes.teams, true);
    });

    it('the entitlement set is for members only', async () => {
      const org = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      assertError(await other.owner.api.get(`/organizations/${org.name}/entitlement-set`), 404);
    });
  });

  describe(`editions: TEAMSTAGE_DEFAULT_FEATURE_SET=Free (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_DEFAULT_FEATURE_SET: 'Free' });
    });
    after(() => ctx.close());

    it('new organizations start on Free', async () => {
      const org = await createOrganization(ctx);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/entitlement-set`)).body.data.attributes.teams, false);
      assertError(await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'x' } } }), 404);
    });
  });
}
