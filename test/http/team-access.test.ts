/**
 * Team access to workspaces (issue 36): HCP's `/team-workspaces` API, and what each access level and custom key
 * lets a member whose only standing is that access do with the workspace: read it and its runs, queue, apply,
 * discard, upload configuration, attach run tasks, change settings and team access, drive the agent protocol,
 * override a stage. 404 for a workspace the caller cannot read, 403 for an action refused on one it can. Both
 * databases.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import {
  createRun, createRunnableWorkspace, createRunTask, createWorkspace, uploadConfiguration, waitForRunStatus,
} from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const JSON_BODY = { 'content-type': 'application/json' };

const grantBody = (teamId: string, workspaceId: string, attributes: Record<string, unknown>) => ({
  data: {
    type: 'team-workspaces',
    attributes,
    relationships: { team: { data: { type: 'teams', id: teamId } }, workspace: { data: { type: 'workspaces', id: workspaceId } } },
  },
});

/** A member of a new team with no organization access, and the team's access `attributes` to `workspaceId`. */
async function memberGranted(ctx: TestContext, org: TestOrganization, workspaceId: string, attributes: Record<string, unknown>): Promise<TestUser & { teamId: string }> {
  const member = await addMember(ctx, org);
  const team = await createTeam(ctx, org, { visibility: 'organization' });
  await addToTeam(org, team.id, member.username);
  const granted = await org.owner.api.post('/team-workspaces', grantBody(team.id, workspaceId, attributes));
  assert.equal(granted.status, 201, granted.text);
  return { ...member, teamId: team.id };
}

/** A raw PUT through the app (the agent protocol's uploads are not JSON:API documents). */
async function put(ctx: TestContext, token: string, url: string, body: Buffer | string, contentType = 'application/json') {
  const response = await ctx.app.inject({ method: 'PUT', url: `/api/v2${url}`, headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload: body });
  return { status: response.statusCode, headers: response.headers, body: undefined, text: response.body };
}

const ids = (run: any) => ({ runId: run.data.id as string, planId: run.data.relationships.plan.data.id as string, applyId: run.data.relationships.apply.data.id as string });

for (const dialect of testDialects()) {
  describe(`team access to workspaces (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it("HCP's API: add, read, list by workspace or team, update, remove; fixed levels echo their keys, custom keys only with custom", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createWorkspace(api, org.name);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const other = await createTeam(ctx, org, { visibility: 'organization' });

      const added = await api.post('/team-workspaces', grantBody(team.id, workspace.id, { access: 'write' }));
      assertStatus(added, 201);
      const id = added.body.data.id as string;
      assert.match(id, /^tws-/);
      assert.equal(added.body.data.type, 'team-workspaces');
      assert.deepEqual(
        added.body.data.attributes,
        { ...added.body.data.attributes, access: 'write', runs: 'apply', variables: 'write', 'state-versions': 'write', 'sentinel-mocks': 'read', 'workspace-locking': true, 'run-tasks': false },
      );
      assert.deepEqual([added.body.data.relationships.team.data.id, added.body.data.relationships.workspace.data.id], [team.id, workspace.id]);
      assert.deepEqual((await api.get(`/team-workspaces/${id}`)).body.data, added.body.data);

      // go-tfe's "with invalid custom options": HCP's sentence, and nothing stored.
      const refused = assertError(await api.post('/team-workspaces', grantBody(other.id, workspace.id, { access: 'read', runs: 'apply' })), 422);
      assert.equal(refused.detail, "Runs is read-only when access level is 'read'; use the 'custom' access level to set this attribute.");
      assertError(await api.post('/team-workspaces', grantBody(other.id, workspace.id, { access: 'owner' })), 422, /access must be one of/);
      assertError(await api.post('/team-workspaces', grantBody(other.id, workspace.id, { access: 'custom', runs: 'destroy' })), 422, /runs must be one of/);
      assertError(await api.post('/team-workspaces', grantBody(team.id, workspace.id, { access: 'read' })), 422, /Team has already been taken/);
      assertError(await api.post('/team-workspaces', grantBody('team-nope', workspace.id, { access: 'read' })), 404, /team not found/);
      assertError(await api.post('/team-workspaces', grantBody(other.id, 'ws-nope', { access: 'read' })), 404, /workspace not found/);

      const custom = await api.post('/team-workspaces', grantBody(other.id, workspace.id, { access: 'custom', runs: 'plan', 'run-tasks': true, 'policy-overrides': true }));
      assertStatus(custom, 201);
      const { attributes } = custom.body.data;
      assert.deepEqual(
        [attributes.access, attributes.runs, attributes.variables, attributes['state-versions'], attributes['sentinel-mocks'], attributes['workspace-locking'], attributes['run-tasks'], attributes['policy-overrides']],
        ['custom', 'plan', 'none', 'none', 'none', false, true, true],
      );

      const byWorkspace = await api.get(`/team-workspaces?filter%5Bworkspace%5D%5Bid%5D=${workspace.id}`);
      assertStatus(byWorkspace, 200);
      assert.deepEqual(byWorkspace.body.data.map((item: any) => item.id), [id, custom.body.data.id]);
      assert.equal(byWorkspace.body.meta.pagination['total-count'], 2);
      const byTeam = await api.get(`/team-workspaces?filter%5Bteam%5D%5Bid%5D=${team.id}`);
      assert.deepEqual(byTeam.body.data.map((item: any) => item.id), [id]);
      assertError(await api.get('/team-workspaces'), 422, /filter\[workspace\]\[id\]/);
      assertError(await api.get('/team-workspaces?filter%5Bworkspace%5D%5Bid%5D=ws-nope'), 404);

      // Custom keys on a fixed level are refused on update too; a custom update keeps what it does not send.
      assertError(await api.patch(`/team-workspaces/${id}`, { data: { type: 'team-workspaces', attributes: { 'run-tasks': true } } }), 422, /Run tasks is read-only when access level is 'write'/);
      const updated = await api.patch(`/team-workspaces/${id}`, { data: { type: 'team-workspaces', attributes: { access: 'custom', runs: 'plan' } } });
      assertStatus(updated, 200);
      assert.deepEqual([updated.body.data.attributes.access, updated.body.data.attributes.runs, updated.body.data.attributes.variables], ['custom', 'plan', 'write']);
      const admin = await api.patch(`/team-workspaces/${id}`, { data: { type: 'team-workspaces', attributes: { access: 'admin' } } });
      assert.deepEqual([admin.body.data.attributes.access, admin.body.data.attributes.runs, admin.body.data.attributes['run-tasks']], ['admin', 'apply', true]);

      assertStatus(await api.delete(`/team-workspaces/${id}`), 204);
      assertError(await api.get(`/team-workspaces/${id}`), 404, /team access not found/);
      assertError(await api.delete(`/team-workspaces/${id}`), 404);

      // Who granted what: the audit trail names the owner, the team, the workspace and the keys.
      const trail = await ctx.handle.db.selectFrom('audit_trail').selectAll().where('resource_type', '=', 'team_workspace').where('resource_id', '=', id).orderBy('seq').execute();
      assert.deepEqual(trail.map((row) => row.action), ['create', 'update', 'update', 'destroy']);
      assert.ok(trail.every((row) => row.actor_name === org.owner.username), JSON.stringify(trail.map((row) => row.actor_name)));
      const created = JSON.parse(trail[0]!.meta as string);
      assert.deepEqual([created['team-id'], created['workspace-id'], created.after.access, created.after.runs], [team.id, workspace.id, 'write', 'apply']);
      assert.deepEqual(JSON.parse(trail[1]!.meta as string).after, { access: 'custom', runs: 'plan' });
    });

    it('a team with write on one workspace and nothing else queues and applies there, and gets 404 on a second workspace', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const mine = await createWorkspace(api, org.name, { 'execution-mode': 'agent' });
      const second = await createRunnableWorkspace(ctx, api, org.name);
      const writer = await memberGranted(ctx, org, mine.id, { access: 'write' });

      const shown = await writer.api.get(`/workspaces/${mine.id}`);
      assertStatus(shown, 200);
      const permissions = shown.body.data.attributes.permissions;
      assert.deepEqual(
        [permissions['can-queue-run'], permissions['can-queue-apply'], permissions['can-update'], permissions['can-destroy'], permissions['can-manage-run-tasks'], permissions['can-lock'], permissions['can-update-variable']],
        [true, true, false, false, false, true, true],
      );
      const listed = await writer.api.get(`/organizations/${org.name}/workspaces`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [mine.id], 'only the workspace its team may read');
      assert.equal(listed.body.data[0].attributes.permissions['can-queue-apply'], true);
      assertError(await writer.api.get(`/workspaces/${second.id}`), 404, /workspace not found/);
      assertError(await writer.api.get(`/organizations/${org.name}/workspaces/${second.name}`), 404);
      assertError(await writer.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: second.id } } } } }), 404);
      const othersRun = ids(await createRun(api, second.id));
      assertError(await writer.api.get(`/runs/${othersRun.runId}`), 404, /run not found/);
      assertError(await writer.api.post(`/runs/${othersRun.runId}/actions/discard`, {}, JSON_BODY), 404);
      assertError(await writer.api.get(`/plans/${othersRun.planId}`), 404);

      // Upload, queue, drive the plan, apply, drive the apply: the whole pipeline, with team access alone.
      const configurationId = await uploadConfiguration(ctx, writer.api, mine.id);
      assert.match(configurationId, /^cv-/);
      const run = ids(await createRun(writer.api, mine.id, { message: 'by the network team' }));
      await waitForRunStatus(writer.api, run.runId, 'plan_queued');
      assertStatus(await writer.api.post(`/plans/${run.planId}/actions/claim`), 200);
      assertStatus(await put(ctx, writer.token, `/plans/${run.planId}/json-output`, fs.readFileSync(path.join(FIXTURES, '120_basic', 'plan.json'))), 200);
      assertStatus(await writer.api.request('POST', `/plans/${run.planId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      await waitForRunStatus(writer.api, run.runId, 'planned');
      assertStatus(await writer.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 202);
      await waitForRunStatus(writer.api, run.runId, 'apply_queued');
      assertStatus(await writer.api.post(`/applies/${run.applyId}/actions/claim`), 200);
      assertStatus(await writer.api.request('POST', `/applies/${run.applyId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      await waitForRunStatus(writer.api, run.runId, 'applied');

      // What write does not give: settings, deletion, team access (403: it reads the workspace).
      assertError(await writer.api.patch(`/workspaces/${mine.id}`, { data: { type: 'workspaces', attributes: { description: 'mine now' } } }), 403);
      assertError(await writer.api.delete(`/workspaces/${mine.id}`), 403);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      assertError(await writer.api.post('/team-workspaces', grantBody(team.id, mine.id, { access: 'admin' })), 403, /admin access/);
      assertError(await writer.api.post('/team-workspaces', grantBody(team.id, second.id, { access: 'admin' })), 404);
    });

    it('each level and custom key against each workspace action: 403 for what it does not give, 404 with no access', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name);
      const task = await createRunTask(api, org.name, service.url);
      const callers = {
        read: await memberGranted(ctx, org, workspace.id, { access: 'read' }),
        plan: await memberGranted(ctx, org, workspace.id, { access: 'plan' }),
        write: await memberGranted(ctx, org, workspace.id, { access: 'write' }),
        admin: await memberGranted(ctx, org, workspace.id, { access: 'admin' }),
        runTasks: await memberGranted(ctx, org, workspace.id, { access: 'custom', 'run-tasks': true }),
        customApply: await memberGranted(ctx, org, workspace.id, { access: 'custom', runs: 'apply' }),
        none: await addMember(ctx, org),
      };
      const expected: Record<keyof typeof callers, Record<string, number>> = {
        read: { show: 200, configuration: 403, queue: 403, discard: 403, attach: 403, settings: 403 },
        plan: { show: 200, configuration: 201, queue: 201, discard: 403, attach: 403, settings: 403 },
        write: { show: 200, configuration: 201, queue: 201, discard: 202, attach: 403, settings: 403 },
        admin: { show: 200, configuration: 201, queue: 201, discard: 202, attach: 201, settings: 200 },
        runTasks: { show: 200, configuration: 403, queue: 403, discard: 403, attach: 201, settings: 403 },
        customApply: { show: 200, configuration: 201, queue: 201, discard: 202, attach: 403, settings: 403 },
        none: { show: 404, configuration: 404, queue: 404, discard: 404, attach: 404, settings: 404 },
      };
      const actual: Record<string, Record<string, number>> = {};
      for (const [name, caller] of Object.entries(callers)) {
        const answers: Record<string, number> = {};
        answers.show = (await caller.api.get(`/workspaces/${workspace.id}`)).status;
        answers.configuration = (await caller.api.post(`/workspaces/${workspace.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } })).status;
        const queued = await caller.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } } });
        answers.queue = queued.status;
        if (queued.status === 201) {
          await waitForRunStatus(api, queued.body.data.id, 'planned');
          assertStatus(await api.post(`/runs/${queued.body.data.id}/actions/discard`, {}, JSON_BODY), 202);
        }
        // Discard (as apply and cancel) a run the owner queued.
        const run = ids(await createRun(api, workspace.id));
        await waitForRunStatus(api, run.runId, 'planned');
        answers.discard = (await caller.api.post(`/runs/${run.runId}/actions/discard`, {}, JSON_BODY)).status;
        if (answers.discard !== 202) assertStatus(await api.post(`/runs/${run.runId}/actions/discard`, {}, JSON_BODY), 202);
        const attached = await caller.api.post(`/workspaces/${workspace.id}/tasks`, {
          data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'advisory' }, relationships: { task: { data: { type: 'tasks', id: task.id } } } },
        });
        answers.attach = attached.status;
        if (attached.status === 201) assertStatus(await api.delete(`/workspaces/${workspace.id}/tasks/${attached.body.data.id}`), 204);
        answers.settings = (await caller.api.patch(`/workspaces/${workspace.id}`, { data: { type: 'workspaces', attributes: { description: name } } })).status;
        actual[name] = answers;
      }
      assert.deepEqual(actual, expected);
      // The refusals say why.
      const run = ids(await createRun(api, workspace.id));
      await waitForRunStatus(api, run.runId, 'planned');
      assertError(await callers.plan.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 403, /needs runs: apply/);
      assertError(await callers.read.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 403, /only people who may queue runs/);
      assertError(await callers.read.api.post(`/runs/${run.runId}/comments`, { data: { type: 'comments', attributes: { body: 'hm' } } }), 403);
      assertStatus(await callers.plan.api.post(`/runs/${run.runId}/comments`, { data: { type: 'comments', attributes: { body: 'looks fine' } } }), 201);
      assertStatus(await api.post(`/runs/${run.runId}/actions/discard`, {}, JSON_BODY), 202);
    });

    it('the agent protocol: plan for runs: plan, apply for runs: apply, 404 for everyone else', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const reader = await memberGranted(ctx, org, workspace.id, { access: 'read' });
      const planner = await memberGranted(ctx, org, workspace.id, { access: 'plan' });
      const writer = await memberGranted(ctx, org, workspace.id, { access: 'write' });
      const tasksOnly = await memberGranted(ctx, org, workspace.id, { access: 'custom', 'run-tasks': true });
      const run = ids(await createRun(api, workspace.id));
      await waitForRunStatus(api, run.runId, 'plan_queued');
      for (const caller of [reader, tasksOnly]) {
        assertStatus(await caller.api.get(`/plans/${run.planId}`), 200);
        assertError(await caller.api.post(`/plans/${run.planId}/actions/claim`), 404, /plan not found/);
      }
      assertStatus(await planner.api.post(`/plans/${run.planId}/actions/claim`), 200);
      assertStatus(await put(ctx, planner.token, `/plans/${run.planId}/json-output`, fs.readFileSync(path.join(FIXTURES, '120_basic', 'plan.json'))), 200);
      assertStatus(await planner.api.request('POST', `/plans/${run.planId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      await waitForRunStatus(api, run.runId, 'planned');
      assertStatus(await writer.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 202);
      await waitForRunStatus(api, run.runId, 'apply_queued');
      assertError(await planner.api.post(`/applies/${run.applyId}/actions/claim`), 404, /apply not found/);
      assertError(await reader.api.post(`/applies/${run.applyId}/actions/claim`), 404);
      assertStatus(await writer.api.post(`/applies/${run.applyId}/actions/claim`), 200);
      assertStatus(await writer.api.request('POST', `/applies/${run.applyId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      await waitForRunStatus(api, run.runId, 'applied');
    });

    it("overriding a stage held by a failed mandatory run task: the workspace's run-tasks (or admin) gives it; write, plan and policy-overrides alone do not", async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      const { org } = gated;
      const callers = {
        read: await memberGranted(ctx, org, gated.workspace.id, { access: 'read' }),
        write: await memberGranted(ctx, org, gated.workspace.id, { access: 'write' }),
        policyOverrides: await memberGranted(ctx, org, gated.workspace.id, { access: 'custom', 'policy-overrides': true }),
        runTasks: await memberGranted(ctx, org, gated.workspace.id, { access: 'custom', 'run-tasks': true }),
        admin: await memberGranted(ctx, org, gated.workspace.id, { access: 'admin' }),
        none: await addMember(ctx, org),
      };
      const awaiting = async () => {
        const runId = await startRun(gated);
        const stage = (await stagesOf(gated.api, runId)).find((item: any) => item.attributes.stage === 'post_plan');
        await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
        return stage.id as string;
      };
      const override = (user: TestUser, stageId: string) => user.api.post(`/task-stages/${stageId}/actions/override`, {}, JSON_BODY);

      const first = await awaiting();
      assertError(await override(callers.none, first), 404, /task stage not found/);
      for (const refused of [callers.read, callers.write, callers.policyOverrides]) {
        assertError(await override(refused, first), 403, /not allowed to override/);
        assert.equal((await refused.api.get(`/task-stages/${first}`)).body.data.attributes.permissions['can-override'], false);
      }
      assert.equal((await callers.runTasks.api.get(`/task-stages/${first}`)).body.data.attributes.permissions['can-override'], true);
      assertStatus(await override(callers.runTasks, first), 200);
      // Out of the way of the next run (one run at a time per workspace).
      const firstRunId = (await gated.api.get(`/task-stages/${first}`)).body.data.relationships.run.data.id;
      await waitForRunStatus(gated.api, firstRunId, ['planned', 'post_plan_completed']);
      assertStatus(await gated.api.post(`/runs/${firstRunId}/actions/discard`, {}, JSON_BODY), 202);

      const second = await awaiting();
      assertStatus(await override(callers.admin, second), 200);
    });

    it('a team token is held to its team\'s access; removing the access hides the workspace again', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const granted = await api.post('/team-workspaces', grantBody(team.id, workspace.id, { access: 'plan' }));
      assertStatus(granted, 201);
      const token = await api.post(`/teams/${team.id}/authentication-token`);
      assertStatus(token, 201);
      const teamApi = new ApiClient(ctx.app, token.body.data.attributes.token);
      assertStatus(await teamApi.get(`/workspaces/${workspace.id}`), 200);
      const run = ids(await createRun(teamApi, workspace.id));
      await waitForRunStatus(api, run.runId, 'planned');
      assertError(await teamApi.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 403, /needs runs: apply/);
      assertStatus(await api.delete(`/team-workspaces/${granted.body.data.id}`), 204);
      assertError(await teamApi.get(`/workspaces/${workspace.id}`), 404);
      assertError(await teamApi.get(`/runs/${run.runId}`), 404);
      assert.deepEqual((await teamApi.get(`/organizations/${org.name}/workspaces`)).body.data, []);
    });
  });
}
