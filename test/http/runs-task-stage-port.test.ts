import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Executor } from '../../src/jobs/job-queue.js';
import type { TaskStagePort } from '../../src/runs/task-stage-port.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRun, createRunnableWorkspace, createRunTask, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, type TestContext, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';
import type { StageStatus } from '../../src/shared/task-stage-statuses.js';

/** How the run side drives the task stage side through its port (TaskStagePort), with a fake task stage side. */
/** A stand-in for the task stage side: records calls, marks started stages running, lets the test settle them. */
class FakeTaskStages implements TaskStagePort {
  readonly started: Array<{ stageId: string; runStatusInTransaction: string | undefined }> = [];
  readonly closed: Array<{ runId: string; reason: string }> = [];
  /** Workspaces whose stage starts throw (as a database error would), counting the tries. */
  readonly failing = new Map<string, number>();

  async start(executor: Executor, taskStageId: string): Promise<boolean> {
    const stage = await executor.selectFrom('task_stages').select('run_id').where('id', '=', taskStageId).executeTakeFirstOrThrow();
    const run = await executor.selectFrom('runs').select(['status', 'workspace_id']).where('id', '=', stage.run_id).executeTakeFirst();
    const tries = run && this.failing.get(run.workspace_id);
    if (run && tries !== undefined) {
      this.failing.set(run.workspace_id, tries + 1);
      throw new Error('start failed');
    }
    this.started.push({ stageId: taskStageId, runStatusInTransaction: run?.status });
    await executor.updateTable('task_stages').set({ status: 'running' }).where('id', '=', taskStageId).execute();
    return true;
  }

  async closeOpenStages(executor: Executor, runId: string, reason: 'cancel' | 'discard'): Promise<void> {
    this.closed.push({ runId, reason });
    await executor.updateTable('task_stages').set({ status: 'canceled' }).where('run_id', '=', runId).where('status', 'in', ['pending', 'running']).execute();
  }

  async closeUnreachedStages(executor: Executor, runId: string): Promise<void> {
    await executor.updateTable('task_stages').set({ status: 'unreachable' }).where('run_id', '=', runId).where('status', '=', 'pending').execute();
  }

  async failureReason(): Promise<string> {
    return 'a stage of the fake failed';
  }
}

for (const dialect of testDialects()) {
  describe(`runs: the task stage interface (${dialect}, fake task stage side)`, () => {
    let ctx: TestContext;
    let fake: FakeTaskStages;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES);
      mock = await MockTaskService.start();
      fake = new FakeTaskStages();
      // Runs reach task stages only through their TaskStagePort, which the task stage runner is (services.ts):
      // putting the fake's two port methods on it puts the fake in its place.
      const port: TaskStagePort = ctx.services.taskStageRunner;
      port.start = fake.start.bind(fake);
      port.closeOpenStages = fake.closeOpenStages.bind(fake);
    });
    after(async () => {
      await mock.close();
      await ctx.close();
    });

    async function runWithStages(org: TestOrganization, stages: string[], attributes: Record<string, unknown> = {}) {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages, 'enforcement-level': 'mandatory' });
      const run = await createRun(org.owner.api, workspace.id, attributes);
      const stageIds: Record<string, string> = {};
      for (const row of await ctx.handle.db.selectFrom('task_stages').select(['id', 'stage']).where('run_id', '=', run.data.id).execute()) stageIds[row.stage] = row.id;
      return { run, runId: run.data.id as string, stageIds };
    }

    async function settle(runId: string, stageId: string, status: StageStatus) {
      await ctx.handle.db.updateTable('task_stages').set({ status }).where('id', '=', stageId).execute();
      await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
      const { organization_name } = await ctx.handle.db
        .selectFrom('runs').innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id').select('workspaces.organization_name').where('runs.id', '=', runId).executeTakeFirstOrThrow();
      await ctx.services.runProgress.enqueueAdvance(ctx.handle.db, runId, organization_name);
    }

    it('enters each stage as <stage>_running and starts it in the same transaction; passed stages continue the run', async () => {
      const org = await createOrganization(ctx);
      const { runId, stageIds } = await runWithStages(org, ['pre_plan', 'post_plan', 'pre_apply', 'post_apply']);
      await waitForRunStatus(org.owner.api, runId, 'pre_plan_running');
      await settle(runId, stageIds.pre_plan!, 'passed');
      await waitForRunStatus(org.owner.api, runId, 'post_plan_running');
      await settle(runId, stageIds.post_plan!, 'passed');
      const waiting = await waitForRunStatus(org.owner.api, runId, 'post_plan_completed');
      assert.equal(waiting.attributes.actions['is-confirmable'], true);
      assertStatus(await org.owner.api.post(`/runs/${runId}/actions/apply`), 202);
      await waitForRunStatus(org.owner.api, runId, 'pre_apply_running');
      await settle(runId, stageIds.pre_apply!, 'passed');
      await waitForRunStatus(org.owner.api, runId, 'post_apply_running');
      await settle(runId, stageIds.post_apply!, 'passed');
      const done = await waitForRunStatus(org.owner.api, runId, 'post_apply_completed');
      assert.match(done.attributes['status-timestamps']['post-apply-completed-at'], /Z$/);
      const mine = fake.started.filter((start) => Object.values(stageIds).includes(start.stageId));
      assert.deepEqual(mine.map((start) => start.stageId), [stageIds.pre_plan, stageIds.post_plan, stageIds.pre_apply, stageIds.post_apply], 'each stage started once, in order');
      assert.deepEqual(mine.map((start) => start.runStatusInTransaction), ['pre_plan_running', 'post_plan_running', 'pre_apply_running', 'post_apply_running']);
    });

    it('awaiting_override holds the run in <stage>_awaiting_decision; once the override passes the stage it continues', async () => {
      const org = await createOrganization(ctx);
      const { runId, stageIds } = await runWithStages(org, ['post_plan'], { 'auto-apply': true });
      await waitForRunStatus(org.owner.api, runId, 'post_plan_running');
      await settle(runId, stageIds.post_plan!, 'awaiting_override');
      const awaiting = await waitForRunStatus(org.owner.api, runId, 'post_plan_awaiting_decision');
      assert.equal(awaiting.attributes.actions['is-discardable'], true);
      assert.equal(awaiting.attributes.actions['is-confirmable'], false);
      assertError(await org.owner.api.post(`/runs/${runId}/actions/apply`), 409);
      // The override: stage running (the run keeps waiting), then passed.
      await settle(runId, stageIds.post_plan!, 'running');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status, 'post_plan_awaiting_decision');
      await settle(runId, stageIds.post_plan!, 'passed');
      await waitForRunStatus(org.owner.api, runId, 'applied');
    });

    it('a stage start failing after the plan keeps the plan\'s outcome: the retry enters the stage without planning again', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages: ['post_plan'], 'enforcement-level': 'mandatory' });
      fake.failing.set(workspace.id, 0);
      const run = await createRun(org.owner.api, workspace.id);
      // Without the outcome kept, the run would stay `planning` until the retry planned again.
      const planned = await waitForRunStatus(org.owner.api, run.data.id, 'planned');
      await waitUntil(() => fake.failing.get(workspace.id)! >= 1, 5000, 'the start was tried');
      const plan = (await org.owner.api.get(`/plans/${planned.relationships.plan.data.id}`)).body.data;
      assert.equal(plan.attributes.status, 'finished');
      const finishedAt = plan.attributes['status-timestamps']['finished-at'];
      fake.failing.delete(workspace.id);
      await waitForRunStatus(org.owner.api, run.data.id, 'post_plan_running');
      const after = (await org.owner.api.get(`/plans/${planned.relationships.plan.data.id}`)).body.data;
      assert.equal(after.attributes['status-timestamps']['finished-at'], finishedAt, 'the plan was not executed again');
    });

    it('an errored or unreachable stage errors the run', async () => {
      const org = await createOrganization(ctx);
      for (const status of ['errored', 'unreachable'] as const) {
        const { runId, stageIds, run } = await runWithStages(org, ['post_plan']);
        await waitForRunStatus(org.owner.api, runId, 'post_plan_running');
        await settle(runId, stageIds.post_plan!, status);
        await waitForRunStatus(org.owner.api, runId, 'errored');
        const apply = await org.owner.api.get(`/applies/${run.data.relationships.apply.data.id}`);
        assert.equal(apply.body.data.attributes.status, 'unreachable', status);
        const plan = await org.owner.api.get(`/plans/${run.data.relationships.plan.data.id}`);
        assert.equal(plan.body.data.attributes.status, 'finished', status);
      }
    });

    it('discard while awaiting a decision and cancel while a stage runs close the open stages with the reason', async () => {
      const org = await createOrganization(ctx);
      const discarded = await runWithStages(org, ['post_plan']);
      await waitForRunStatus(org.owner.api, discarded.runId, 'post_plan_running');
      assertError(await org.owner.api.post(`/runs/${discarded.runId}/actions/discard`), 409, /cannot be discarded/);
      await settle(discarded.runId, discarded.stageIds.post_plan!, 'awaiting_override');
      await waitForRunStatus(org.owner.api, discarded.runId, 'post_plan_awaiting_decision');
      assertError(await org.owner.api.post(`/runs/${discarded.runId}/actions/cancel`), 409);
      assertStatus(await org.owner.api.post(`/runs/${discarded.runId}/actions/discard`), 202);
      await waitForRunStatus(org.owner.api, discarded.runId, 'discarded');
      assert.deepEqual(fake.closed.filter((call) => call.runId === discarded.runId), [{ runId: discarded.runId, reason: 'discard' }]);

      const canceled = await runWithStages(org, ['pre_plan']);
      const running = await waitForRunStatus(org.owner.api, canceled.runId, 'pre_plan_running');
      assert.equal(running.attributes.actions['is-cancelable'], true);
      assertStatus(await org.owner.api.post(`/runs/${canceled.runId}/actions/cancel`), 202);
      const shown = await waitForRunStatus(org.owner.api, canceled.runId, 'canceled');
      assert.match(shown.attributes['canceled-at'], /Z$/);
      assert.deepEqual(fake.closed.filter((call) => call.runId === canceled.runId), [{ runId: canceled.runId, reason: 'cancel' }]);
      const plan = await org.owner.api.get(`/plans/${canceled.run.data.relationships.plan.data.id}`);
      assert.equal(plan.body.data.attributes.status, 'canceled');
      // A late report from the canceled stage changes nothing.
      await settle(canceled.runId, canceled.stageIds.pre_plan!, 'passed');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await org.owner.api.get(`/runs/${canceled.runId}`)).body.data.attributes.status, 'canceled');
    });
  });
}
