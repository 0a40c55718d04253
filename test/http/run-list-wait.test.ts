/**
 * Issue 38, item 3: a page watching a workspace's runs holds one waiting read of their list
 * (`GET /workspaces/:id/runs?wait=SECONDS&wait-token=TOKEN`), woken by the database's change signals: a run
 * created behind another (it stays `pending`, no status changes: migration 037's insert signal, SQLite's
 * temporary insert trigger) shows within a second, well before the 5 s re-check; without a change the read
 * answers after the wait with the same token; a bad wait is a 422; an unknown workspace a 404 at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

for (const dialect of testDialects()) {
  describe(`waiting reads of a workspace's runs (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_RUN_WAIT_MAX: '10' });
      org = await createOrganization(ctx);
    });
    after(async () => ctx.close());

    it('a run created behind another wakes the waiting list read within a second, with its place in the queue', async () => {
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const first = await createRun(api, workspace.id, { message: 'first' });
      await waitForRunStatus(api, first.data.id, 'plan_queued');
      const listed = await api.get(`/workspaces/${workspace.id}/runs`);
      assert.equal(listed.status, 200, listed.text);
      const token = listed.body.meta['wait-token'] as string;
      assert.match(token, /^[\w-]{16}$/);

      const waiting = api.get(`/workspaces/${workspace.id}/runs?wait=8&wait-token=${token}`).then((answer) => ({ answer, at: performance.now() }));
      await waitUntil(() => ctx.services.runWaits.waiting === 1, 10_000, 'the list read never started waiting');
      assert.equal(ctx.services.runWaits.waiting, 1, 'the list read is waiting');
      const second = await createRun(api, workspace.id, { message: 'second' });
      const createdAt = performance.now();
      const { answer, at } = await waiting;
      assert.equal(answer.status, 200, answer.text);
      const pending = answer.body.data.find((run: any) => run.id === second.data.id);
      assert.ok(pending, 'the new run is on the page');
      assert.equal(pending.attributes.status, 'pending');
      assert.equal(pending.attributes['position-in-queue'], 1, 'one run ahead: the one that holds the workspace');
      assert.notEqual(answer.body.meta['wait-token'], token);
      // The re-check runs every 5 s: an answer within a second was woken by the insert's signal.
      assert.ok(at - createdAt < 1000, `answered ${Math.round(at - createdAt)} ms after the run was created`);
      assert.equal(ctx.services.runWaits.waiting, 0);

      // Nothing changes: the read answers after the wait, with the same token.
      const quiet = await api.get(`/workspaces/${workspace.id}/runs?wait=0.3&wait-token=${answer.body.meta['wait-token']}`);
      assert.equal(quiet.body.meta['wait-token'], answer.body.meta['wait-token']);
    });

    it('a bad wait is a 422 and an unknown workspace a 404, before any wait', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, {});
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}/runs?wait=soon`), 422);
      const started = performance.now();
      assertError(await org.owner.api.get('/workspaces/ws-doesnotexist0000/runs?wait=5'), 404);
      assert.ok(performance.now() - started < 4000, 'the 404 did not wait');
    });
  });
}
