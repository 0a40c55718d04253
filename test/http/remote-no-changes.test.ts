/**
 * Issue 34 item 5: a remote run whose plan has no changes ends `planned_and_finished` after its post-plan
 * stage and frees its workspace, as HCP's do (terraform's and tofu's `cloud` block confirm nothing when
 * `has-changes` is false, so a run left waiting for confirmation held the workspace until canceled).
 * TEAMSTAGE_SIMULATED_PLAN_CHANGES=true makes the built-in executor's plans create one simulated resource,
 * consistently (has-changes, counts, plan JSON, log), and then runs wait for their apply.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun } from '../helpers/task-stage-scenario.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`a remote run with no changes (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect);
      org = await createOrganization(ctx);
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it('ends planned_and_finished, confirmable by nobody, and the next run of its workspace starts at once', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      const finished = await waitForRunStatus(org.owner.api, first, 'planned_and_finished');
      assert.equal(finished.attributes['has-changes'], false);
      assert.equal(finished.attributes.actions['is-confirmable'], false);
      assert.equal(finished.attributes.actions['is-discardable'], false);
      const plan = await org.owner.api.get(`/plans/${finished.relationships.plan.data.id}`);
      assertStatus(plan, 200);
      assert.equal(plan.body.data.attributes['has-changes'], false);
      assert.equal(plan.body.data.attributes['resource-additions'], 0);
      assert.equal((await org.owner.api.post(`/runs/${first}/actions/apply`, {})).status, 409);

      // The workspace is free: the next run is not queued behind the first.
      const second = await createRun(org.owner.api, workspace.id);
      assert.equal(second.data.attributes['position-in-queue'], 0);
      await waitForRunStatus(org.owner.api, second.data.id, 'planned_and_finished');
    });

    it('passes its post-plan stage first; its pre-apply and post-apply stages are never entered', async () => {
      const gated = await gatedWorkspace(ctx, service.mock, 'pass', { stages: ['post_plan', 'pre_apply', 'post_apply'] });
      const runId = await startRun(gated);
      const finished = await waitForRunStatus(gated.api, runId, 'planned_and_finished');
      assert.ok(finished.attributes['status-timestamps']['post-plan-completed-at'], 'the post-plan stage ran and passed first');
      const stages = Object.fromEntries((await stagesOf(gated.api, runId)).map((stage) => [stage.attributes.stage, stage.attributes.status]));
      assert.equal(stages.post_plan, 'passed');
      assert.notEqual(stages.pre_apply, 'running');
      assert.notEqual(stages.post_apply, 'running');
      const called = service.mock.requests.filter((request) => (request.json as any)?.run_id === runId).map((request) => (request.json as any).stage);
      assert.deepEqual(called, ['post_plan'], 'no apply-stage task was called');
    });
  });

  describe(`TEAMSTAGE_SIMULATED_PLAN_CHANGES=true (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    it('the plan creates one simulated resource (has-changes, counts, JSON plan and log agree) and the run waits for its apply', async () => {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const runId = (await createRun(org.owner.api, workspace.id)).data.id;
      const planned = await waitForRunStatus(org.owner.api, runId, 'planned');
      assert.equal(planned.attributes['has-changes'], true);
      assert.equal(planned.attributes.actions['is-confirmable'], true);
      const planId = planned.relationships.plan.data.id;
      const plan = await org.owner.api.get(`/plans/${planId}`);
      assert.equal(plan.body.data.attributes['has-changes'], true);
      assert.deepEqual(
        [plan.body.data.attributes['resource-additions'], plan.body.data.attributes['resource-changes'], plan.body.data.attributes['resource-destructions']],
        [1, 0, 0],
      );
      const json = await org.owner.api.get(`/plans/${planId}/json-output`);
      assertStatus(json, 200);
      const body = typeof json.body === 'object' && json.body !== null ? json.body : JSON.parse(json.text);
      assert.deepEqual(body.resource_changes.map((change: any) => [change.type, change.change.actions]), [['terraform_data', ['create']]]);

      assertStatus(await org.owner.api.post(`/runs/${runId}/actions/apply`, {}), 202);
      const applied = await waitForRunStatus(org.owner.api, runId, 'applied');
      const apply = await org.owner.api.get(`/applies/${applied.relationships.apply.data.id}`);
      assert.equal(apply.body.data.attributes['resource-additions'], 1);
    });
  });
}
