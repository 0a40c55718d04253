import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExecutionContext, RunExecutor } from '../../src/runs/executor.js';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createUser } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { createRun, createRunnableWorkspace, createWorkspace, memberWithAccess, organizationToken, putUpload, tarGz, waitForRunStatus } from '../helpers/run-fixtures.js';
import { SIMULATED_PLAN_CHANGES, startAppWithTaskService, type TestContext, testDialects } from '../helpers/test-app.js';

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

for (const dialect of testDialects()) {
  describe(`runs (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let close: () => Promise<void>;
    before(async () => ({ ctx, mock, close } = await startAppWithTaskService(dialect, SIMULATED_PLAN_CHANGES)));
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
      assert.equal(plan.body.data.attributes['has-changes'], true, 'the simulated change (TEAMSTAGE_SIMULATED_PLAN_CHANGES)');
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
}
