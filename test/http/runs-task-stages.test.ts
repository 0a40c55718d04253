import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { ApiClient } from '../helpers/api-client.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRun, createRunnableWorkspace, createRunTask, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, type TestContext, testDialects } from '../helpers/test-app.js';

/** Runs create their task stages and results with the run, from the run tasks attached to their workspace. */
for (const dialect of testDialects()) {
  describe(`runs: task stages created with the run (${dialect}, no background jobs)`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_JOBS: 'off' });
      mock = await MockTaskService.start();
    });
    after(async () => {
      await mock.close();
      await ctx.close();
    });

    async function workspaceWithTasks(org: TestOrganization) {
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const t1 = await createRunTask(org.owner.api, org.name, mock.url, { name: 'first' });
      const t2 = await createRunTask(org.owner.api, org.name, mock.url, { name: 'second' });
      const disabled = await createRunTask(org.owner.api, org.name, mock.url, { name: 'off', enabled: false });
      const t4 = await createRunTask(org.owner.api, org.name, mock.url, { name: 'applier' });
      const a1 = await attachRunTask(org.owner.api, workspace.id, t1.id, { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] });
      const a2 = await attachRunTask(org.owner.api, workspace.id, t2.id, { 'enforcement-level': 'advisory' });
      await attachRunTask(org.owner.api, workspace.id, disabled.id, { stages: ['post_plan', 'post_apply'] });
      const a4 = await attachRunTask(org.owner.api, workspace.id, t4.id, { stages: ['post_apply', 'pre_apply'] });
      return { workspace, tasks: { t1, t2, t4 }, attachments: { a1, a2, a4 } };
    }

    it('one stage per stage value with enabled tasks, in run order, each with one pending result per task; the start job is enqueued with the run', async () => {
      const org = await createOrganization(ctx);
      const { workspace, tasks, attachments } = await workspaceWithTasks(org);
      const run = await createRun(org.owner.api, workspace.id, {}, '?include=task_stages');
      assert.equal(run.data.attributes.status, 'pending');
      const stageIds = run.data.relationships['task-stages'].data.map((stage: any) => stage.id);
      assert.equal(stageIds.length, 4);
      const shown = (await org.owner.api.get(`/runs/${run.data.id}`)).body.data;
      for (const relation of ['plan', 'apply', 'task-stages']) {
        assert.deepEqual(run.data.relationships[relation], shown.relationships[relation], `the created run names its ${relation} as a read does`);
      }
      const stages = run.included.filter((item: any) => item.type === 'task-stages');
      assert.deepEqual(stages.map((stage: any) => stage.id), stageIds);
      assert.deepEqual(stages.map((stage: any) => stage.attributes.stage), ['pre_plan', 'post_plan', 'pre_apply', 'post_apply']);
      for (const stage of stages) {
        assert.match(stage.id, /^ts-/);
        assert.equal(stage.attributes.status, 'pending');
        assert.deepEqual(stage.relationships.run.data, { id: run.data.id, type: 'runs' });
      }

      const results = await ctx.handle.db.selectFrom('task_results').selectAll().where('run_id', '=', run.data.id).execute();
      const byStage = (stageId: string) => results.filter((result) => result.task_stage_id === stageId).map((result) => result.task_name).sort();
      assert.deepEqual(byStage(stageIds[0]), ['first']);
      assert.deepEqual(byStage(stageIds[1]), ['first', 'second']);
      assert.deepEqual(byStage(stageIds[2]), ['applier']);
      assert.deepEqual(byStage(stageIds[3]), ['applier']);
      for (const result of results) {
        assert.match(result.id, /^taskrs-/);
        assert.equal(result.status, 'pending');
        assert.equal(result.is_speculative, 0);
        assert.equal(result.task_url, mock.url);
      }
      const first = results.find((result) => result.task_name === 'first' && result.stage === 'post_plan')!;
      assert.equal(first.task_id, tasks.t1.id);
      assert.equal(first.workspace_task_id, attachments.a1.id);
      assert.equal(first.enforcement_level, 'mandatory');
      assert.equal(results.find((result) => result.task_name === 'second')!.enforcement_level, 'advisory');

      const jobs = await ctx.handle.db.selectFrom('jobs').select(['kind', 'payload']).where('kind', '=', 'run.advance').execute();
      assert.ok(jobs.some((job) => JSON.parse(job.payload).runId === run.data.id), 'run.advance enqueued with the run');
    });

    it('PostgreSQL writes the run, its plan, apply, stages, results and start job in one statement', {
      skip: dialect !== 'postgres' && 'SQLite writes them in a transaction of plain inserts',
    }, async () => {
      const org = await createOrganization(ctx);
      const { workspace } = await workspaceWithTasks(org);
      const sent: string[] = [];
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const first = args[0] as string | { text: string };
        sent.push(typeof first === 'string' ? first : first.text);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      let runId: string;
      try {
        runId = (await createRun(org.owner.api, workspace.id)).data.id;
      } finally {
        pg.Client.prototype.query = query;
      }
      const writes = sent.filter((text) => !/^\s*select\b/i.test(text));
      assert.equal(writes.length, 1, `one write statement, not: ${writes.join(' | ')}`);
      for (const table of ['runs', 'plans', 'applies', 'task_stages', 'task_results', 'jobs']) assert.ok(writes[0]!.includes(`insert into "${table}"`), table);
      assert.equal((await ctx.handle.db.selectFrom('task_results').select('id').where('run_id', '=', runId).execute()).length, 5);
      const job = await ctx.handle.db.selectFrom('jobs').select(['payload', 'attempts', 'locked_by']).where('kind', '=', 'run.advance').where('payload', 'like', `%${runId}%`).executeTakeFirstOrThrow();
      assert.deepEqual({ ...job, payload: JSON.parse(job.payload) }, { payload: { runId }, attempts: 0, locked_by: null });
    });

    it('a plan-only run gets no apply stages and speculative results', async () => {
      const org = await createOrganization(ctx);
      const { workspace } = await workspaceWithTasks(org);
      const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      const stages = await ctx.handle.db.selectFrom('task_stages').select(['stage']).where('run_id', '=', run.data.id).execute();
      assert.deepEqual(stages.map((stage) => stage.stage).sort(), ['post_plan', 'pre_plan']);
      const results = await ctx.handle.db.selectFrom('task_results').select(['is_speculative']).where('run_id', '=', run.data.id).execute();
      assert.equal(results.length, 3);
      assert.ok(results.every((result) => result.is_speculative === 1));
    });

    it('a workspace whose tasks are all disabled gets no stages; a detached task no longer counts', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const task = await createRunTask(org.owner.api, org.name, mock.url, { enabled: false });
      await attachRunTask(org.owner.api, workspace.id, task.id);
      const run = await createRun(org.owner.api, workspace.id);
      assert.deepEqual(run.data.relationships['task-stages'].data, []);
    });

    it('progress resumes after a restart: a second node over the same database finishes what the first left', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const run = await createRun(org.owner.api, workspace.id);
      // This node takes one step and "dies" (its job worker is off); the job stays in the table.
      assert.equal(await ctx.services.runProgress.step(run.data.id), 'moved');
      await ctx.handle.durable?.(); // writes made outside any request reach API reads once on disk (src/db/durable-snapshot-reads.ts)
      assert.equal((await org.owner.api.get(`/runs/${run.data.id}`)).body.data.attributes.status, 'plan_queued');
      const { app: second } = await buildApp({ config: { ...ctx.config, jobs: { ...ctx.config.jobs, enabled: true, pollSeconds: 0.05 } }, handle: ctx.handle, logger: false });
      try {
        const api = new ApiClient(second, org.owner.token);
        await waitForRunStatus(api, run.data.id, 'applied');
      } finally {
        await second.close();
      }
    });

    it('advance is idempotent: the same job run several times at once moves the run once per step', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const run = await createRun(org.owner.api, workspace.id);
      const progress = ctx.services.runProgress;
      await Promise.all([progress.advance(run.data.id), progress.advance(run.data.id), progress.advance(run.data.id)]);
      await progress.advance(run.data.id);
      await ctx.handle.durable?.(); // writes made outside any request reach API reads once on disk (src/db/durable-snapshot-reads.ts)
      const shown = (await org.owner.api.get(`/runs/${run.data.id}`)).body.data;
      assert.equal(shown.attributes.status, 'applied');
      const plan = (await org.owner.api.get(`/plans/${shown.relationships.plan.data.id}`)).body.data;
      assert.equal(plan.attributes.status, 'finished');
    });
  });

}
