/**
 * What go-tfe's run tests expect of HCP Terraform (issue 28): the create attributes echoed as sent, the run
 * list's filters and searches, `include=created_by` and `confirmed-by`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, type TestContext, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`runs: HCP attributes, filters and users (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => (ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES)));
    after(() => ctx.close());

    it('echoes refresh, refresh-only, allow-empty-apply, replace-addrs, target-addrs and variables; defaults as HCP', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const plain = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      assert.deepEqual(
        ['refresh', 'refresh-only', 'allow-empty-apply', 'replace-addrs', 'target-addrs', 'variables'].map((key) => plain.data.attributes[key]),
        [true, false, false, [], [], []],
      );
      const asked = {
        'plan-only': true,
        refresh: false,
        'refresh-only': true,
        'allow-empty-apply': true,
        'replace-addrs': ['null_resource.a'],
        'target-addrs': ['null_resource.b', 'module.c'],
        variables: [{ key: 'region', value: '"eu"' }, { key: 'size', value: '3' }],
      };
      const created = await createRun(org.owner.api, workspace.id, asked);
      const shown = await org.owner.api.get(`/runs/${created.data.id}`);
      assertStatus(shown, 200);
      for (const document of [created, shown.body]) {
        for (const [key, value] of Object.entries(asked)) assert.deepEqual(document.data.attributes[key], value, key);
      }
      const wrong = await org.owner.api.post('/runs', {
        data: { type: 'runs', attributes: { 'target-addrs': 'a' }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } },
      });
      assertError(wrong, 422);
    });

    it('include=created_by includes the creator; confirmed-by names who applied the run, null before', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = await createRun(org.owner.api, workspace.id);
      const read = await org.owner.api.get(`/runs/${run.data.id}?include=created_by`);
      assertStatus(read, 200);
      const creator = read.body.included.find((resource: any) => resource.type === 'users');
      assert.equal(creator.id, org.owner.id);
      assert.equal(creator.attributes.username, org.owner.username);
      await waitForRunStatus(org.owner.api, run.data.id, 'planned');
      assert.equal(read.body.data.relationships['confirmed-by'].data, null);
      assertStatus(await org.owner.api.post(`/runs/${run.data.id}/actions/apply`, {}), 202);
      const applied = await waitForRunStatus(org.owner.api, run.data.id, 'applied');
      assert.deepEqual(applied.relationships['confirmed-by'].data, { id: org.owner.id, type: 'users' });
      const withConfirmer = await org.owner.api.get(`/runs/${run.data.id}?include=confirmed-by`);
      assert.deepEqual(withConfirmer.body.included.map((resource: any) => [resource.type, resource.id]), [['users', org.owner.id]]);
    });

    it('the run list filters by status, operation, source, status group, user and basic search; commit and agent pools match nothing', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      // The first run holds the workspace's turn in `planned`, so the next one waits `pending`.
      const first = (await createRun(org.owner.api, workspace.id)).data;
      await waitForRunStatus(org.owner.api, first.id, 'planned');
      const queued = await createRun(org.owner.api, workspace.id, { message: 'Second One' });
      const planOnly = await createRun(org.owner.api, workspace.id, { 'plan-only': true, message: 'speculative' });
      await waitForRunStatus(org.owner.api, planOnly.data.id, 'planned_and_finished');
      const ids = async (query: string) => {
        const listed = await org.owner.api.get(`/workspaces/${workspace.id}/runs?${query}`);
        assertStatus(listed, 200);
        assert.equal(listed.body.meta.pagination['total-count'], listed.body.data.length);
        return listed.body.data.map((run: any) => run.id).sort();
      };
      const sorted = (...list: string[]) => [...list].sort();
      assert.deepEqual(await ids('filter[status]=pending'), [queued.data.id]);
      assert.deepEqual(await ids('filter%5Bstatus%5D=pending%2Cplanned'), sorted(queued.data.id, first.id));
      assert.deepEqual(await ids('filter[operation]=plan_only'), [planOnly.data.id]);
      assert.deepEqual(await ids('filter[operation]=save_plan'), []);
      assert.deepEqual(await ids('filter[source]=tfe-api'), sorted(first.id, queued.data.id, planOnly.data.id));
      assert.deepEqual(await ids('filter[source]=tfe-ui'), []);
      assert.deepEqual(await ids('filter[status_group]=final'), [planOnly.data.id]);
      assert.deepEqual(await ids('filter[status_group]=non_final'), sorted(first.id, queued.data.id));
      assert.deepEqual(await ids('filter[status_group]=discardable'), sorted(first.id, queued.data.id));
      assert.deepEqual(await ids(`search[user]=${org.owner.username}`), sorted(first.id, queued.data.id, planOnly.data.id));
      assert.deepEqual(await ids('search[user]=nobody-at-all'), []);
      assert.deepEqual(await ids('search[basic]=second'), [queued.data.id]);
      assert.deepEqual(await ids(`search[basic]=${planOnly.data.id.slice(4).toLowerCase()}`), [planOnly.data.id]);
      assert.deepEqual(await ids('filter[commit]=abc123'), []);
      assert.deepEqual(await ids('search[commit]=abc123'), []);
      assert.deepEqual(await ids('filter[agent_pool_names]=pool'), []);
      for (const query of ['filter[status]=sleeping', 'filter[operation]=everything', 'filter[status_group]=done']) {
        assertError(await org.owner.api.get(`/workspaces/${workspace.id}/runs?${query}`), 422);
      }
    });
  });
}
