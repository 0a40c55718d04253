/**
 * Issue 37: HCP's forceful run actions. force-cancel: only after a cancel and once `force-cancel-available-at`
 * has passed (Teamstage's cancel ends the run at once, so a canceled run is refused with why); force-execute: a
 * pending run goes first, the runs ahead discarded (waiting for a person) or canceled (working); 409 when the run is
 * not pending or its workspace is locked; 404/403 from the access table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';
import { FORCE_CANCEL_COOL_OFF_SECONDS } from '../../src/runs/force-cancel.js';
import type { RunStatus } from '../../src/shared/run-statuses.js';

for (const dialect of testDialects()) {
  describe(`run force-cancel and force-execute (${dialect})`, () => {
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
    /** Moves the run's cancel request back in time (the cool-off is minutes; no test waits for it). */
    const canceledLongAgo = async (runId: string, status?: RunStatus) => {
      const run = await ctx.handle.db.selectFrom('runs').select('status_timestamps').where('id', '=', runId).executeTakeFirstOrThrow();
      const earlier = new Date(Date.now() - (FORCE_CANCEL_COOL_OFF_SECONDS + 60) * 1000).toISOString();
      const timestamps = { ...JSON.parse(run.status_timestamps ?? '{}'), 'canceled-at': earlier };
      await ctx.handle.db.updateTable('runs').set({ status_timestamps: JSON.stringify(timestamps), ...(status ? { status } : {}) }).where('id', '=', runId).execute();
      // The app's own connection may hold an older snapshot a moment (SQLite's group commit): wait, bounded, until it reads the write.
      const expected = new Date(Date.parse(earlier) + FORCE_CANCEL_COOL_OFF_SECONDS * 1000).toISOString();
      for (let tries = 0; (await show(runId)).attributes['force-cancel-available-at'] !== expected; tries++) {
        assert.ok(tries < 100, 'the app never read the rewritten cancel time');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    it('a cancel sets force-cancel-available-at after the cool-off; force-cancel is refused before any cancel, before that time, and on a run the cancel ended', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = await createRun(org.owner.api, workspace.id);
      assert.equal(second.data.attributes.status, 'pending');
      assert.equal(second.data.attributes['force-cancel-available-at'], null);
      assert.equal(second.data.attributes.actions['is-force-cancelable'], false);
      assert.equal(second.data.attributes.permissions['can-force-cancel'], true);
      assert.equal(second.data.attributes.permissions['can-force-execute'], true);
      assertError(await org.owner.api.post(`/runs/${second.data.id}/actions/force-cancel`), 409, /only after a cancel/);

      assertStatus(await org.owner.api.post(`/runs/${second.data.id}/actions/cancel`, { comment: 'stop' }), 202);
      const canceled = await show(second.data.id);
      const canceledAt = Date.parse(canceled.attributes['canceled-at']);
      assert.equal(canceled.attributes['status-timestamps']['canceled-at'], canceled.attributes['canceled-at']);
      assert.equal(Date.parse(canceled.attributes['force-cancel-available-at']) - canceledAt, FORCE_CANCEL_COOL_OFF_SECONDS * 1000);
      assert.ok(Date.parse(canceled.attributes['force-cancel-available-at']) > Date.now());
      assertError(await org.owner.api.post(`/runs/${second.data.id}/actions/force-cancel`), 409, /available from/);

      await canceledLongAgo(second.data.id);
      assertError(await org.owner.api.post(`/runs/${second.data.id}/actions/force-cancel`), 409, /already ended it \(it is canceled\)/);
      assert.equal((await show(second.data.id)).attributes.actions['is-force-cancelable'], false);
    });

    it('a run still unfinished after a cancel request and the cool-off is force-canceled, and gives the queue its turn back', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      // The state force-cancel exists for: a cancel was asked of the run holding the turn (applying) and did not end it.
      await canceledLongAgo(first, 'applying');
      const stuck = await show(first);
      assert.equal(stuck.attributes.actions['is-force-cancelable'], true, JSON.stringify(stuck.attributes));
      assertStatus(await org.owner.api.post(`/runs/${first}/actions/force-cancel`, { comment: 'stuck' }), 202);
      assert.equal((await show(first)).attributes.status, 'canceled');
      await waitForRunStatus(org.owner.api, second, 'planned');
      const trail = await ctx.handle.db.selectFrom('audit_trail').select(['action']).where('resource_id', '=', first).execute();
      assert.ok(trail.some((row) => row.action === 'force-cancel'), JSON.stringify(trail));
    });

    it('force-execute discards the run awaiting confirmation and the pending runs ahead, and the forced run plans', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      const third = await createRun(org.owner.api, workspace.id);
      assert.equal(third.data.attributes['position-in-queue'], 2);
      const speculative = (await createRun(org.owner.api, workspace.id, { 'plan-only': true })).data.id;

      assertStatus(await org.owner.api.post(`/runs/${third.data.id}/actions/force-execute`), 202);
      assert.equal((await show(first)).attributes.status, 'discarded');
      assert.equal((await show(second)).attributes.status, 'discarded');
      await waitForRunStatus(org.owner.api, third.data.id, 'planned');
      assert.notEqual((await show(speculative)).attributes.status, 'discarded', 'a plan-only run is in no queue');
      assertError(await org.owner.api.post(`/runs/${third.data.id}/actions/force-execute`), 409, /it is planned, not pending/);
    });

    it('force-execute cancels a working run ahead, and refuses while the workspace is locked', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      // The first run as if it were still applying (the simulated executor is too quick to catch there).
      await ctx.handle.db.updateTable('runs').set({ status: 'applying' }).where('id', '=', first).execute();
      assertStatus(await org.owner.api.post(`/workspaces/${workspace.id}/actions/lock`, { reason: 'freeze' }), 200);
      assertError(await org.owner.api.post(`/runs/${second}/actions/force-execute`), 409, /workspace is locked/);
      assert.equal((await show(first)).attributes.status, 'applying', 'nothing changed');
      assertStatus(await org.owner.api.post(`/workspaces/${workspace.id}/actions/unlock`), 200);
      assertStatus(await org.owner.api.post(`/runs/${second}/actions/force-execute`), 202);
      assert.equal((await show(first)).attributes.status, 'canceled');
      await waitForRunStatus(org.owner.api, second, 'planned');
    });

    it('the access table decides: a reader is refused (403), a stranger finds nothing (404), an unknown run is 404', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const stranger = await addMember(ctx, org);
      const seen = await reader.api.get(`/runs/${second}`);
      assert.equal(seen.body.data.attributes.permissions['can-force-execute'], false);
      assert.equal(seen.body.data.attributes.permissions['can-force-cancel'], false);
      for (const action of ['force-cancel', 'force-execute']) {
        assertError(await reader.api.post(`/runs/${second}/actions/${action}`), 403);
        assertError(await stranger.api.post(`/runs/${second}/actions/${action}`), 404);
        assertError(await org.owner.api.post(`/runs/run-doesnotexist/actions/${action}`), 404);
      }
      assert.equal((await show(first)).attributes.status, 'planned', 'nothing changed');
      assert.equal((await show(second)).attributes.status, 'pending');
    });
  });
}
