/**
 * One run at a time per workspace (issue 27, CONTRACT section 7): a non-speculative run is `pending`, with
 * `position-in-queue`, while an earlier run of its workspace is active (also one waiting for confirmation
 * or an override), and starts when that one is final; plan-only runs never wait and never block; a pending
 * run can be canceled or discarded; `configuration-version: {data: null}` takes the latest upload.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`the run queue of a workspace (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    const show = async (runId: string) => {
      const shown = await org.owner.api.get(`/runs/${runId}`);
      assertStatus(shown, 200);
      return shown.body.data;
    };
    /** Run progress's own answer for a run: 'waiting' when it may not move now (no timing involved). */
    const step = (runId: string) => ctx.services.runProgress.step(runId);

    it('a second run waits pending (position 1) while the first awaits confirmation, and plans once the first is applied', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = await createRun(org.owner.api, workspace.id);
      assert.equal(second.data.attributes.status, 'pending');
      assert.equal(second.data.attributes['position-in-queue'], 1);
      assert.equal(await step(second.data.id), 'waiting');
      const waiting = await show(second.data.id);
      assert.equal(waiting.attributes.status, 'pending');
      assert.equal(waiting.attributes['position-in-queue'], 1);
      assert.equal((await show(first)).attributes['position-in-queue'], 0);

      assertStatus(await org.owner.api.post(`/runs/${first}/actions/apply`, { comment: 'ship it' }), 202);
      await waitForRunStatus(org.owner.api, first, 'applied');
      const planned = await waitForRunStatus(org.owner.api, second.data.id, 'planned');
      assert.equal(planned.attributes['position-in-queue'], 0);
      // It started only after the first run was applied.
      const firstApplied = Date.parse((await show(first)).attributes['status-timestamps']['applied-at']);
      assert.ok(Date.parse(planned.attributes['status-timestamps']['plan-queued-at']) >= firstApplied);
    });

    it("the workspace's current-run names the run that holds it (HCP's relationship), not a pending or plan-only one", async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const currentRun = async () => {
        const shown = await org.owner.api.get(`/workspaces/${workspace.id}`);
        assertStatus(shown, 200);
        return shown.body.data.relationships['current-run'].data;
      };
      assert.equal(await currentRun(), null, 'no run yet');
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      const speculative = (await createRun(org.owner.api, workspace.id, { 'plan-only': true })).data.id;
      await waitForRunStatus(org.owner.api, speculative, 'planned_and_finished');
      assert.deepEqual(await currentRun(), { id: first, type: 'runs' }, 'the run awaiting confirmation holds the workspace');
      assertStatus(await org.owner.api.post(`/runs/${first}/actions/discard`, {}), 202);
      await waitForRunStatus(org.owner.api, second, 'planned');
      assert.deepEqual(await currentRun(), { id: second, type: 'runs' });
      const listed = await org.owner.api.get(`/organizations/${org.name}/workspaces`);
      assert.deepEqual(listed.body.data.find((row: any) => row.id === workspace.id).relationships['current-run'].data, { id: second, type: 'runs' });
    });

    it('runs behind a waiting one are counted in order; cancel and discard of pending runs work and move the queue on', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      const third = (await createRun(org.owner.api, workspace.id)).data.id;
      const fourth = (await createRun(org.owner.api, workspace.id)).data.id;
      assert.deepEqual(
        await Promise.all([second, third, fourth].map(async (id) => (await show(id)).attributes['position-in-queue'])),
        [1, 2, 3],
      );
      const pending = await show(third);
      assert.equal(pending.attributes.actions['is-cancelable'], true);
      assert.equal(pending.attributes.actions['is-discardable'], true);

      assertStatus(await org.owner.api.post(`/runs/${second}/actions/cancel`, { comment: 'not this one' }), 202);
      assert.equal((await show(second)).attributes.status, 'canceled');
      assert.equal((await show(third)).attributes['position-in-queue'], 1);
      assert.equal(await step(third), 'waiting');

      // The first run is discarded: the third takes the turn, the fourth moves up.
      assertStatus(await org.owner.api.post(`/runs/${first}/actions/discard`, {}), 202);
      await waitForRunStatus(org.owner.api, third, 'planned');
      assert.equal((await show(fourth)).attributes['position-in-queue'], 1);
      assertStatus(await org.owner.api.post(`/runs/${fourth}/actions/discard`, { comment: 'superseded' }), 202);
      const discarded = await show(fourth);
      assert.equal(discarded.attributes.status, 'discarded');
      assert.equal(discarded.attributes['position-in-queue'], 0);
      // The canceled pending run never planned.
      const canceled = await show(second);
      assert.equal(canceled.attributes['status-timestamps']['planning-at'], undefined);
    });

    it('plan-only runs never wait and never block', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      // A plan-only run waiting for its pipeline (agent mode) holds nothing…
      const speculative = (await createRun(org.owner.api, workspace.id, { 'plan-only': true })).data.id;
      await waitForRunStatus(org.owner.api, speculative, 'plan_queued');
      const real = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, real, 'plan_queued');
      // …and a plan-only run created while a real one holds the turn does not wait for it.
      const another = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      assert.equal(another.data.attributes['position-in-queue'], 0);
      await waitForRunStatus(org.owner.api, another.data.id, 'plan_queued');
      // A second real run waits behind the first one, not behind the plan-only runs.
      const queued = (await createRun(org.owner.api, workspace.id)).data.id;
      assert.equal(await step(queued), 'waiting');
      assert.equal((await show(queued)).attributes['position-in-queue'], 1);
    });

    it('runs created at once in one workspace take turns: no two hold the workspace at the same time', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const ids = await Promise.all(Array.from({ length: 6 }, async () => (await createRun(org.owner.api, workspace.id)).data.id));
      const runs = [];
      for (const id of ids) runs.push(await waitForRunStatus(org.owner.api, id, 'applied', 20_000));
      const spans = runs
        .map((run) => ({ from: Date.parse(run.attributes['status-timestamps']['plan-queued-at']), to: Date.parse(run.attributes['status-timestamps']['applied-at']) }))
        .sort((a, b) => a.from - b.from);
      for (let i = 1; i < spans.length; i++) {
        assert.ok(spans[i]!.from >= spans[i - 1]!.to, `run ${i} started at ${spans[i]!.from}, before the one before it was applied at ${spans[i - 1]!.to}`);
      }
    });

    it('POST /runs with configuration-version {data: null} uses the latest uploaded configuration version', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const latest = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      const created = await org.owner.api.post('/runs', {
        data: {
          type: 'runs',
          attributes: { 'plan-only': true },
          relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } }, 'configuration-version': { data: null } },
        },
      });
      assertStatus(created, 201);
      assert.deepEqual(created.body.data.relationships['configuration-version'].data, { id: latest, type: 'configuration-versions' });
      assert.notEqual(latest, workspace.configurationVersionId);
    });
  });
}
