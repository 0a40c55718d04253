/**
 * What one tenant may pile up (issue 34 item 6): comments per run (count and length) and runs pending in one
 * workspace's queue are limited by settings with defaults (config.ts `runLimits`); beyond, a named 422 or 429
 * and nothing written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, putUpload, tarGz, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`run limits (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_COMMENTS_PER_RUN: '3', TEAMSTAGE_COMMENT_MAX_CHARS: '40', TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE: '2' });
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    const comment = (runId: string, body: string) => org.owner.api.post(`/runs/${runId}/comments`, { data: { type: 'comments', attributes: { body } } });
    const commentCount = async (runId: string) => (await org.owner.api.get(`/runs/${runId}/comments`)).body.meta.pagination['total-count'];

    it('a run takes TEAMSTAGE_COMMENTS_PER_RUN comments (a decision\'s comment counts), each up to TEAMSTAGE_COMMENT_MAX_CHARS; beyond: a 422 and nothing written', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, run, 'planned');
      assertError(await comment(run, 'x'.repeat(41)), 422, /body must be at most 40 characters/);
      assertStatus(await comment(run, 'x'.repeat(40)), 201);
      assertStatus(await comment(run, 'second'), 201);
      assertStatus(await org.owner.api.post(`/runs/${run}/actions/discard`, { comment: 'third: with the decision' }), 202);
      assert.equal(await commentCount(run), 3);
      assertError(await comment(run, 'fourth'), 422, /this run has 3 comments, the most a run may have \(TEAMSTAGE_COMMENTS_PER_RUN\)/);
      assert.equal(await commentCount(run), 3, 'nothing written');
    });

    it('a workspace queue holds TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE pending runs; one more is a 429 with Retry-After and no run; plan-only runs still go', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const holder = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, holder, 'planned');
      const pending: string[] = [];
      for (let i = 0; i < 2; i++) {
        const queued = await createRun(org.owner.api, workspace.id);
        assert.equal(queued.data.attributes.status, 'pending');
        pending.push(queued.data.id);
      }
      const runCount = async () => (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.meta.pagination['total-count'];
      const before = await runCount();
      const refused = await org.owner.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } } });
      assertError(refused, 429, /this workspace already has 2 runs pending, the most its queue holds \(TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE\)/);
      assert.equal(refused.headers['retry-after'], '60');
      assert.equal(await runCount(), before, 'no run was made');
      // A configuration upload that would queue one more run is refused the same way, and stays unuploaded.
      const version = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: {} } });
      assertStatus(version, 201);
      const upload = await putUpload(ctx, version.body.data.attributes['upload-url'], tarGz());
      assert.equal(upload.statusCode, 429, upload.body);
      assert.match(upload.body, /TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE/);
      assert.equal((await org.owner.api.get(`/configuration-versions/${version.body.data.id}`)).body.data.attributes.status, 'pending');
      assert.equal(await runCount(), before, 'no run was made');
      const speculative = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      await waitForRunStatus(org.owner.api, speculative.data.id, 'planned_and_finished');
      // The queue moves on: a place is free again.
      assertStatus(await org.owner.api.post(`/runs/${holder}/actions/discard`, {}), 202);
      await waitForRunStatus(org.owner.api, pending[0]!, 'planned');
      const next = await createRun(org.owner.api, workspace.id);
      assert.equal(next.data.attributes.status, 'pending');
    });
  });
}
