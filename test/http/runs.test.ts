import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { Executor } from '../../src/jobs/job-queue.js';
import type { ExecutionContext, RunExecutor } from '../../src/runs/executor.js';
import type { TaskStagePort } from '../../src/runs/task-stage-port.js';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import {
  attachRunTask, createRun, createRunnableWorkspace, createRunTask, createWorkspace, memberWithAccess, organizationToken, putUpload, tarGz,
  waitForRunStatus,
} from '../helpers/run-fixtures.js';
import { createTestApp, startAppWithTaskService, testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const runBody = (workspaceId: string | undefined, attributes: Record<string, unknown> = {}, configurationVersionId?: string) => ({
  data: {
    type: 'runs',
    attributes,
    relationships: {
      ...(workspaceId ? { workspace: { data: { type: 'workspaces', id: workspaceId } } } : {}),
      ...(configurationVersionId ? { 'configuration-version': { data: { type: 'configuration-versions', id: configurationVersionId } } } : {}),
    },
  },
});

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
}

for (const dialect of testDialects()) {
  describe(`runs (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let close: () => Promise<void>;
    before(async () => ({ ctx, mock, close } = await startAppWithTaskService(dialect)));
    after(() => close());

    it("the plan and the apply are told the run's workspace, organization and configuration", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const progress = ctx.services.runProgress as unknown as { executor: RunExecutor };
      const noop = progress.executor;
      const told: Array<{ phase: string; context: Omit<ExecutionContext, 'loadConfiguration'>; archive: boolean }> = [];
      const record = (phase: string) => async ({ loadConfiguration, ...context }: ExecutionContext) => {
        told.push({ phase, context, archive: ((await loadConfiguration())?.length ?? 0) > 0 });
      };
      progress.executor = {
        name: 'recording',
        plan: async (context) => (await record('plan')(context), noop.plan(context)),
        apply: async (context) => (await record('apply')(context), noop.apply(context)),
      };
      try {
        const run = await createRun(org.owner.api, workspace.id);
        await waitForRunStatus(org.owner.api, run.data.id, 'applied');
        const context = {
          runId: run.data.id, workspaceId: workspace.id, workspaceName: workspace.name, organizationName: org.name,
          configurationVersionId: workspace.configurationVersionId, planOnly: false, isDestroy: false,
        };
        assert.deepEqual(told, [{ phase: 'plan', context, archive: true }, { phase: 'apply', context, archive: true }]);
      } finally {
        progress.executor = noop;
      }
    });

    it('a run without run tasks plans, waits for apply, applies: no task stages, plan and apply finished', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const created = await org.owner.api.post('/runs', runBody(workspace.id, { message: 'first run' }));
      assertStatus(created, 201);
      const run = created.body.data;
      assert.match(run.id, /^run-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(run.type, 'runs');
      assert.equal(run.attributes.message, 'first run');
      assert.equal(run.attributes['plan-only'], false);
      assert.equal(run.attributes['auto-apply'], false);
      assert.match(run.attributes['created-at'], /Z$/);
      assert.deepEqual(run.relationships.workspace.data, { id: workspace.id, type: 'workspaces' });
      assert.deepEqual(run.relationships['configuration-version'].data, { id: workspace.configurationVersionId, type: 'configuration-versions' });
      assert.match(run.relationships.plan.data.id, /^plan-/);
      assert.match(run.relationships.apply.data.id, /^apply-/);
      assert.deepEqual(run.relationships['task-stages'].data, []);
      assert.deepEqual(run.relationships['created-by'].data, { id: org.owner.id, type: 'users' });
      assert.equal(run.links.self, `/api/v2/runs/${run.id}`);

      const planned = await waitForRunStatus(org.owner.api, run.id, 'planned');
      assert.equal(planned.attributes.actions['is-confirmable'], true);
      assert.equal(planned.attributes.actions['is-discardable'], true);
      assert.equal(planned.attributes.actions['is-cancelable'], false);
      // It waits: the no-op executor still asks for confirmation, so apply stages stay reachable.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal((await org.owner.api.get(`/runs/${run.id}`)).body.data.attributes.status, 'planned');

      const applied = await org.owner.api.post(`/runs/${run.id}/actions/apply`, { comment: 'ship it' });
      assert.equal(applied.status, 202);
      assert.equal(applied.text, '');
      const done = await waitForRunStatus(org.owner.api, run.id, 'applied');
      for (const key of ['plan-queueable-at', 'plan-queued-at', 'planning-at', 'planned-at', 'confirmed-at', 'apply-queued-at', 'applying-at', 'applied-at']) {
        assert.match(done.attributes['status-timestamps'][key] ?? '', /Z$/, key);
      }
      assert.deepEqual(done.relationships['task-stages'].data, []);
      assert.equal(done.attributes.actions['is-confirmable'], false);

      const plan = await org.owner.api.get(`/plans/${run.relationships.plan.data.id}`);
      assertStatus(plan, 200);
      assert.equal(plan.body.data.type, 'plans');
      assert.equal(plan.body.data.attributes.status, 'finished');
      assert.equal(plan.body.data.attributes['has-changes'], false);
      assert.equal(plan.body.data.links['json-output'], `/api/v2/plans/${plan.body.data.id}/json-output`);
      const apply = await org.owner.api.get(`/applies/${run.relationships.apply.data.id}`);
      assertStatus(apply, 200);
      assert.equal(apply.body.data.type, 'applies');
      assert.equal(apply.body.data.attributes.status, 'finished');
      // Statuses passed in one transaction are written as one change, each with its timestamp.
      for (const phase of [plan, apply]) {
        assert.deepEqual(Object.keys(phase.body.data.attributes['status-timestamps']).sort(), ['finished-at', 'queued-at', 'running-at']);
      }
      assertError(await org.owner.api.post(`/runs/${run.id}/actions/apply`), 409);
      assertError(await org.owner.api.post(`/runs/${run.id}/actions/discard`), 409);
      assertError(await org.owner.api.post(`/runs/${run.id}/actions/cancel`), 409);
    });

    it('auto-apply (from the workspace or the run) applies without confirmation', async () => {
      const org = await createOrganization(ctx);
      const autoWorkspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const first = await createRun(org.owner.api, autoWorkspace.id);
      assert.equal(first.data.attributes['auto-apply'], true);
      await waitForRunStatus(org.owner.api, first.data.id, 'applied');
      const manual = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const second = await createRun(org.owner.api, manual.id, { 'auto-apply': true });
      await waitForRunStatus(org.owner.api, second.data.id, 'applied');
    });

    it('plan-only runs (and speculative configuration versions) end planned_and_finished and cannot be applied', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      const finished = await waitForRunStatus(org.owner.api, run.data.id, 'planned_and_finished');
      assert.equal(finished.attributes['plan-only'], true);
      assertError(await org.owner.api.post(`/runs/${run.data.id}/actions/apply`), 409, /plan-only/);
      const apply = await org.owner.api.get(`/applies/${run.data.relationships.apply.data.id}`);
      assert.equal(apply.body.data.attributes.status, 'unreachable');

      const speculative = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: { speculative: true, 'auto-queue-runs': false } },
      });
      assert.equal((await putUpload(ctx, speculative.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      const fromSpeculative = await org.owner.api.post('/runs', runBody(workspace.id, {}, speculative.body.data.id));
      assertStatus(fromSpeculative, 201);
      assert.equal(fromSpeculative.body.data.attributes['plan-only'], true);
      await waitForRunStatus(org.owner.api, fromSpeculative.body.data.id, 'planned_and_finished');
    });

    it('discard: a waiting run becomes discarded; then every action is 409', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = await createRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.data.id, 'planned');
      assertError(await org.owner.api.post(`/runs/${run.data.id}/actions/cancel`), 409, /cannot be canceled/);
      const discarded = await org.owner.api.post(`/runs/${run.data.id}/actions/discard`);
      assert.equal(discarded.status, 202);
      const shown = await waitForRunStatus(org.owner.api, run.data.id, 'discarded');
      assert.match(shown.attributes['status-timestamps']['discarded-at'], /Z$/);
      for (const action of ['apply', 'discard', 'cancel']) assertError(await org.owner.api.post(`/runs/${run.data.id}/actions/${action}`), 409);
      assert.equal((await org.owner.api.get(`/applies/${run.data.relationships.apply.data.id}`)).body.data.attributes.status, 'unreachable');
    });

    it('rejects bad run input: 422 with pointers, 404 for an unknown workspace', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const bare = await createWorkspace(org.owner.api, org.name);
      const other = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const pending = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, { data: { type: 'configuration-versions' } });
      assertStatus(pending, 201);

      assert.equal(assertError(await org.owner.api.post('/runs', runBody(undefined)), 422).source?.pointer, '/data/relationships/workspace');
      assertError(await org.owner.api.post('/runs', runBody('ws-doesnotexist12345')), 404);
      assert.equal(assertError(await org.owner.api.post('/runs', runBody(bare.id)), 422, /no uploaded configuration/).source?.pointer, '/data/relationships/configuration-version');
      assertError(await org.owner.api.post('/runs', runBody(workspace.id, {}, pending.body.data.id)), 422, /not been uploaded/);
      assertError(await org.owner.api.post('/runs', runBody(workspace.id, {}, other.configurationVersionId)), 422, /not found in this workspace/);
      assertError(await org.owner.api.post('/runs', runBody(workspace.id, {}, 'cv-doesnotexist12345')), 422);
      assert.equal(assertError(await org.owner.api.post('/runs', runBody(workspace.id, { 'plan-only': 'true' })), 422).source?.pointer, '/data/attributes/plan-only');
      assertError(await org.owner.api.post('/runs', runBody(workspace.id, { message: 7 })), 422);
      assertError(await org.owner.api.post('/runs', { data: { type: 'workspaces', relationships: {} } }), 422);
      assertError(await org.owner.api.post('/runs?include=everything', runBody(workspace.id)), 400, /include parameter/);
      assertError(await org.owner.api.get('/runs/run-doesnotexist12345'), 404);
      assertError(await org.owner.api.post('/runs/run-doesnotexist12345/actions/apply'), 404);
      assertError(await org.owner.api.get('/plans/plan-doesnotexist12345'), 404);
      assertError(await org.owner.api.get('/applies/apply-doesnotexist12345'), 404);
    });

    it('authorization: readers read; people who manage workspaces queue and act; the organization token cannot', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = await createRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.data.id, 'planned');
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const manager = await memberWithAccess(ctx, org, { 'manage-workspaces': true });
      const plain = await addMember(ctx, org);
      const outsider = await createUser(ctx);
      const orgToken = await organizationToken(ctx, org);

      const seen = await reader.api.get(`/runs/${run.data.id}`);
      assertStatus(seen, 200);
      assert.equal(seen.body.data.attributes.permissions['can-apply'], false);
      assertStatus(await reader.api.get(`/workspaces/${workspace.id}/runs`), 200);
      assertStatus(await reader.api.get(`/plans/${run.data.relationships.plan.data.id}`), 200);
      assertError(await reader.api.post('/runs', runBody(workspace.id)), 403);
      assertError(await reader.api.post(`/runs/${run.data.id}/actions/discard`), 403);

      for (const stranger of [plain, outsider]) {
        assertError(await stranger.api.get(`/runs/${run.data.id}`), 404);
        assertError(await stranger.api.post('/runs', runBody(workspace.id)), 404);
        assertError(await stranger.api.post(`/runs/${run.data.id}/actions/apply`), 404);
        assertError(await stranger.api.get(`/plans/${run.data.relationships.plan.data.id}`), 404);
        assertError(await stranger.api.get(`/applies/${run.data.relationships.apply.data.id}`), 404);
      }
      assertError(await new ApiClient(ctx.app).get(`/runs/${run.data.id}`), 401);

      assertError(await orgToken.post('/runs', runBody(workspace.id)), 403, /organization token/);
      assertError(await orgToken.post(`/runs/${run.data.id}/actions/apply`), 403);
      const byToken = await orgToken.get(`/runs/${run.data.id}`);
      assertStatus(byToken, 200);
      assert.equal(byToken.body.data.attributes.permissions['can-apply'], false);

      const managed = await manager.api.post('/runs', runBody(workspace.id));
      assertStatus(managed, 201);
      assert.deepEqual(managed.body.data.relationships['created-by'].data, { id: manager.id, type: 'users' });
      assertStatus(await manager.api.post(`/runs/${run.data.id}/actions/apply`), 202);
    });

    it('lists a workspace\'s runs newest first, paginated, with includes in both spellings', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await createRun(org.owner.api, workspace.id, { 'plan-only': true })).data.id);
      const page = await org.owner.api.get(`/workspaces/${workspace.id}/runs?page[size]=2`);
      assertStatus(page, 200);
      assert.deepEqual(page.body.data.map((run: any) => run.id), [ids[2], ids[1]]);
      assert.equal(page.body.meta.pagination['total-count'], 3);
      assert.equal(page.body.meta.pagination['total-pages'], 2);
      const last = await org.owner.api.get(`/workspaces/${workspace.id}/runs?page%5Bsize%5D=2&page%5Bnumber%5D=2`);
      assert.deepEqual(last.body.data.map((run: any) => run.id), [ids[0]]);

      const included = await org.owner.api.get(`/runs/${ids[0]}?include=plan,apply,workspace,configuration_version,task_stages`);
      assertStatus(included, 200);
      assert.deepEqual(included.body.included.map((item: any) => item.type).sort(), ['applies', 'configuration-versions', 'plans', 'workspaces']);
      const hyphen = await org.owner.api.get(`/runs/${ids[0]}?include=task-stages,configuration-version`);
      assertStatus(hyphen, 200);
      assertError(await org.owner.api.get(`/runs/${ids[0]}?include=nonsense`), 400, /include parameter/);
    });
  });

  describe(`runs: task stages created with the run (${dialect}, no background jobs)`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' });
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
      const shown = (await org.owner.api.get(`/runs/${run.data.id}`)).body.data;
      assert.equal(shown.attributes.status, 'applied');
      const plan = (await org.owner.api.get(`/plans/${shown.relationships.plan.data.id}`)).body.data;
      assert.equal(plan.attributes.status, 'finished');
    });
  });

  describe(`runs: the task stage interface (${dialect}, fake task stage side)`, () => {
    let ctx: TestContext;
    let fake: FakeTaskStages;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect);
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

    async function settle(runId: string, stageId: string, status: string) {
      await ctx.handle.db.updateTable('task_stages').set({ status }).where('id', '=', stageId).execute();
      await ctx.services.runProgress.onTaskStageSettled(runId);
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
      for (const status of ['errored', 'unreachable']) {
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


