/**
 * Agent execution mode (issue 16): workspaces' execution-mode, and the protocol a pipeline drives a run's
 * plan and apply with (claim, plan JSON, log, report), with real `terraform show -json` plans
 * (test/fixtures/terraform-plans), on both databases.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import {
  attachRunTask, createRun, createRunnableWorkspace, createRunTask, createWorkspace, memberWithAccess, organizationToken, waitForRunStatus,
} from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const fixturePlan = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name, 'plan.json'));

/** A raw PUT through the app (uploads are not JSON:API documents). */
async function put(ctx: TestContext, token: string, url: string, body: Buffer | string, contentType = 'application/json') {
  const response = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v2${url}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: body,
  });
  let parsed: any;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body, raw: response.rawPayload };
}

interface AgentRun {
  runId: string;
  planId: string;
  applyId: string;
}

async function agentRun(api: ApiClient, workspaceId: string, attributes: Record<string, unknown> = {}): Promise<AgentRun> {
  const run = await createRun(api, workspaceId, attributes);
  return { runId: run.data.id, planId: run.data.relationships.plan.data.id, applyId: run.data.relationships.apply.data.id };
}

/** What the database holds of a plan: the test's "nothing changed" check reads it before and after. */
async function planRow(ctx: TestContext, planId: string) {
  return ctx.handle.db.selectFrom('plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow();
}

const report = (api: ApiClient, kind: 'plans' | 'applies', id: string, body: unknown) =>
  api.request('POST', `/${kind}/${id}/actions/report`, body, { 'content-type': 'application/json' });

/** Claims the plan, uploads `plan` and a log, reports finished. */
async function pipelinePlans(ctx: TestContext, org: TestOrganization, run: AgentRun, plan: Buffer): Promise<void> {
  const api = org.owner.api;
  assertStatus(await api.post(`/plans/${run.planId}/actions/claim`), 200);
  assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, plan), 200);
  assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, 'Terraform will perform the following actions\n', 'text/plain'), 200);
  assertStatus(await report(api, 'plans', run.planId, { status: 'finished' }), 200);
}

for (const dialect of testDialects()) {
  describe(`agent execution mode (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect, {
        TEAMSTAGE_PLAN_JSON_MAX_BYTES: String(64 * 1024),
        TEAMSTAGE_LOG_MAX_BYTES: '4096',
        TEAMSTAGE_PLAN_JSON_MAX_DEPTH: '32',
        TEAMSTAGE_PLAN_JSON_MAX_VALUES: '5000',
      });
      mock = await MockTaskService.start();
    });
    after(async () => {
      await mock.close();
      await ctx.close();
    });

    it('execution-mode: remote by default, set on create and PATCH, shown; anything else is a 422', async () => {
      const org = await createOrganization(ctx);
      const plain = await createWorkspace(org.owner.api, org.name);
      assert.equal(plain.body.data.attributes['execution-mode'], 'remote');
      const agent = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      assert.equal(agent.body.data.attributes['execution-mode'], 'agent');
      assert.equal((await org.owner.api.get(`/workspaces/${agent.id}`)).body.data.attributes['execution-mode'], 'agent');

      const patched = await org.owner.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'execution-mode': 'local' } } });
      assertStatus(patched, 200);
      assert.equal(patched.body.data.attributes['execution-mode'], 'local');
      assert.equal(patched.body.data.attributes.name, plain.name, 'a PATCH changes only what it sends');
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/workspaces/${plain.name}`)).body.data.attributes['execution-mode'], 'local');

      const byName = await org.owner.api.patch(`/organizations/${org.name}/workspaces/${agent.name}`, {
        data: { type: 'workspaces', attributes: { 'execution-mode': 'remote', 'auto-apply': true } },
      });
      assertStatus(byName, 200);
      assert.deepEqual([byName.body.data.id, byName.body.data.attributes['execution-mode'], byName.body.data.attributes['auto-apply']], [agent.id, 'remote', true]);
      assertError(await org.owner.api.patch(`/organizations/${org.name}/workspaces/nope`, { data: { type: 'workspaces', attributes: {} } }), 404);
      assertError(await org.owner.api.patch(`/workspaces/${agent.id}`, { data: { type: 'workspaces', attributes: { name: plain.name.toUpperCase() } } }), 422, /already been taken/);

      const bad = await org.owner.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'execution-mode': 'cloud' } } });
      assertError(bad, 422, /remote, agent, local/);
      assert.equal(bad.body.errors[0].source.pointer, '/data/attributes/execution-mode');
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'x1', 'execution-mode': 7 } } }), 422);
      assert.equal((await org.owner.api.get(`/workspaces/${plain.id}`)).body.data.attributes['execution-mode'], 'local', 'unchanged');

      // Changing modes needs manage-workspaces: a reader may see the workspace but not change it (403).
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      assertError(await reader.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'execution-mode': 'agent' } } }), 403);
    });

    it('local mode queues no runs (422); remote mode keeps the no-op executor, whose empty plan ends the run planned_and_finished', async () => {
      const org = await createOrganization(ctx);
      const local = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'local' });
      const refused = await org.owner.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: local.id } } } } });
      assertError(refused, 422, /execution-mode is local/);

      const remote = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = await agentRun(org.owner.api, remote.id);
      // Nothing to apply, as on HCP (issue 34 item 5): the run ends by itself instead of waiting for a confirmation.
      const finished = await waitForRunStatus(org.owner.api, run.runId, 'planned_and_finished');
      assert.equal(finished.attributes['has-changes'], false);
      const plan = (await org.owner.api.get(`/plans/${run.planId}`)).body.data;
      assert.deepEqual(plan.attributes['execution-details'], { mode: 'remote' });
      // Remote mode: the built-in executor's few lines, through the signed URL, with no token.
      const remoteLog = await ctx.app.inject({ method: 'GET', url: new URL(plan.attributes['log-read-url']).pathname });
      assert.equal(remoteLog.statusCode, 200);
      assert.equal(remoteLog.body, "\u0002Teamstage's built-in executor runs no Terraform (simulated).\n\nNo changes. Your infrastructure matches the configuration.\n\u0003");
      // The agent protocol is for agent mode only.
      assertError(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 409, /not in agent execution mode/);
    });

    it('a whole run: claim, upload, report the plan; confirm; claim, log, report the apply', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      const api = org.owner.api;

      // The run waits for the pipeline: nothing plans it.
      await waitForRunStatus(api, run.runId, 'plan_queued');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const queued = (await api.get(`/plans/${run.planId}`)).body.data;
      assert.equal(queued.attributes.status, 'queued');
      assert.equal((await api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'plan_queued');
      assert.deepEqual(queued.attributes['execution-details'], { mode: 'agent' });
      assert.match(queued.attributes['log-read-url'], new RegExp(`^${ctx.config.baseUrl}/api/v2/signed-logs/\\d+/\\d+\\.[\\w-]+/plans/${run.planId}/log$`));
      // Nothing to upload or report before the claim; no apply before the plan.
      assertError(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('120_basic')), 409, /claim it first/);
      assertError(await report(api, 'plans', run.planId, { status: 'finished' }), 409, /claim it first/);
      assertError(await api.post(`/applies/${run.applyId}/actions/claim`), 409, /plan_queued/);

      const claimed = await api.post(`/plans/${run.planId}/actions/claim`);
      assertStatus(claimed, 200);
      assert.equal(claimed.body.data.type, 'plans');
      assert.equal(claimed.body.data.attributes.status, 'running');
      assert.equal((await api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'planning');
      assertError(await api.post(`/plans/${run.planId}/actions/claim`), 409, /already claimed/);
      // A finished report needs the plan JSON.
      assertError(await report(api, 'plans', run.planId, { status: 'finished' }), 422, /plan JSON/);

      // Uploads may be replaced until the report.
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('no_changes')), 200);
      const plan = fixturePlan('120_basic');
      const uploaded = await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, plan);
      assertStatus(uploaded, 200);
      assert.equal(uploaded.body.data.attributes['has-changes'], true);
      assert.equal(uploaded.body.data.attributes['resource-additions'], 7);
      const log = Buffer.concat([Buffer.from('Plan: 7 to add\n'), Buffer.from([0xff, 0x00, 0x1b]), Buffer.from('[0m\n')]);
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, log, 'text/plain'), 200);
      const served = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${run.planId}/log`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.equal(served.statusCode, 200);
      assert.match(String(served.headers['content-type']), /^text\/plain/);
      assert.ok(served.rawPayload.equals(log), 'the log is served as uploaded, byte for byte');
      // The signed log-read-url, with no token: framed by STX, without ETX while the plan is running.
      const signedPath = new URL(queued.attributes['log-read-url']).pathname;
      const unsigned = await ctx.app.inject({ method: 'GET', url: signedPath });
      assert.ok(unsigned.rawPayload.equals(Buffer.concat([Buffer.from([2]), log])), 'STX, then the log as uploaded');

      const reported = await report(api, 'plans', run.planId, { status: 'finished' });
      assertStatus(reported, 200);
      assert.equal(reported.body.data.attributes.status, 'finished');
      // Idempotent: the same report again is answered the same; another one is refused.
      assertStatus(await report(api, 'plans', run.planId, { status: 'finished' }), 200);
      assertError(await report(api, 'plans', run.planId, { status: 'errored', message: 'late' }), 409, /already reported finished/);
      assertError(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('no_changes')), 409, /reported finished/);

      const planned = await waitForRunStatus(api, run.runId, 'planned');
      assert.equal(planned.attributes['has-changes'], true);
      assert.equal(planned.attributes.actions['is-confirmable'], true);
      const json = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${run.planId}/json-output`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.ok(json.rawPayload.equals(plan), 'the plan JSON is served byte for byte');

      assert.equal((await api.post(`/runs/${run.runId}/actions/apply`, { comment: 'ship' })).status, 202);
      await waitForRunStatus(api, run.runId, 'apply_queued');
      assert.equal((await api.get(`/applies/${run.applyId}`)).body.data.attributes.status, 'queued');
      const applyClaim = await api.post(`/applies/${run.applyId}/actions/claim`);
      assertStatus(applyClaim, 200);
      assert.equal(applyClaim.body.data.attributes.status, 'running');
      assert.equal((await api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'applying');
      assertError(await api.post(`/applies/${run.applyId}/actions/claim`), 409, /already claimed/);
      assertStatus(await put(ctx, org.owner.token, `/applies/${run.applyId}/log`, 'Apply complete! Resources: 7 added\n', 'text/plain'), 200);
      assertStatus(await report(api, 'applies', run.applyId, { status: 'finished' }), 200);
      const applied = await waitForRunStatus(api, run.runId, 'applied');
      assert.equal(applied.attributes.actions['is-cancelable'], false);
      const apply = (await api.get(`/applies/${run.applyId}`)).body.data;
      assert.equal(apply.attributes.status, 'finished');
      assert.match(apply.attributes['log-read-url'], new RegExp(`/api/v2/signed-logs/\\d+/\\d+\\.[\\w-]+/applies/${run.applyId}/log$`));
      const applyLog = await ctx.app.inject({ method: 'GET', url: `${new URL(apply.attributes['log-read-url']).pathname}?limit=8&offset=1` });
      assert.equal(applyLog.body, 'Apply co', 'offset and limit count bytes of the framed log');
      assert.equal((await api.get(`/applies/${run.applyId}/log`)).text, 'Apply complete! Resources: 7 added\n');
      assertStatus(await report(api, 'applies', run.applyId, { status: 'finished' }), 200);
    });

    it('an errored report errors the run; an unknown status is a 422 with nothing changed', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      assertStatus(await org.owner.api.post(`/plans/${run.planId}/actions/claim`), 200);
      assertError(await report(org.owner.api, 'plans', run.planId, { status: 'done' }), 422, /finished/);
      assertError(await report(org.owner.api, 'plans', run.planId, {}), 422);
      assert.equal((await planRow(ctx, run.planId)).agent_report, null);
      const errored = await report(org.owner.api, 'plans', run.planId, { status: 'errored', message: 'terraform plan exited 1' });
      assertStatus(errored, 200);
      assert.equal(errored.body.data.attributes.status, 'errored');
      await waitForRunStatus(org.owner.api, run.runId, 'errored');
      assertStatus(await report(org.owner.api, 'plans', run.planId, { status: 'errored', message: 'terraform plan exited 1' }), 200);
      assertError(await report(org.owner.api, 'plans', run.planId, { status: 'finished' }), 409);
      assert.equal((await org.owner.api.get(`/applies/${run.applyId}`)).body.data.attributes.status, 'unreachable');
    });

    it('uploads that are not plan JSON, or too large, are 422 with nothing changed', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      assertStatus(await org.owner.api.post(`/plans/${run.planId}/actions/claim`), 200);
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('action_reason')), 200);
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, 'first log', 'text/plain'), 200);
      const before = await planRow(ctx, run.planId);
      assert.equal(before.resource_destructions, 1);

      const big = Buffer.from(JSON.stringify({ format_version: '1.2', resource_changes: [], padding: 'x'.repeat(70 * 1024) }));
      const refusals: Array<[Buffer | string, RegExp]> = [
        ['{"format_version": "1.2", ', /not valid JSON/],
        ['{"resource_changes": []}', /format_version/],
        ['{"format_version": 1.2}', /format_version/],
        ['["format_version"]', /JSON object/],
        ['', /not valid JSON/],
        [big, /larger than the limit of 65536 bytes/],
        // The bounds (docs/pipeline.md, "Execution modes"): a document that nests deeper or holds more values than allowed.
        [`{"format_version":"1.2","x":${'['.repeat(40)}${']'.repeat(40)}}`, /deeper than the limit of 32 levels \(TEAMSTAGE_PLAN_JSON_MAX_DEPTH\)/],
        [`{"format_version":"1.2","x":[${'[],'.repeat(5000)}[]]}`, /more values than the limit of 5000 \(TEAMSTAGE_PLAN_JSON_MAX_VALUES\)/],
      ];
      for (const [body, detail] of refusals) {
        assertError(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, body), 422, detail);
      }
      assertError(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, 'y'.repeat(5000), 'text/plain'), 422, /larger than the limit of 4096 bytes/);
      // Announced as too large: refused before the body is read.
      const announced = await ctx.app.inject({
        method: 'PUT',
        url: `/api/v2/plans/${run.planId}/json-output`,
        headers: { authorization: `Bearer ${org.owner.token}`, 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) },
        payload: '{}',
      });
      assert.equal(announced.statusCode, 422);
      assert.deepEqual(await planRow(ctx, run.planId), before, 'the plan, its JSON, counts and log are as before');
    });

    it('a token that may not queue runs gets 404 from every protocol request; the organization token too', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const orgToken = await organizationToken(ctx, org);
      const outsider = await createOrganization(ctx);
      for (const [who, api] of [['reader', reader.api], ['organization token', orgToken], ['outsider', outsider.owner.api]] as const) {
        assertError(await api.post(`/plans/${run.planId}/actions/claim`), 404, /plan not found/);
        assertError(await report(api, 'plans', run.planId, { status: 'finished' }), 404, /plan not found/);
        assertError(await put(ctx, api.token!, `/plans/${run.planId}/json-output`, fixturePlan('numerics')), 404, /plan not found/);
        assertError(await put(ctx, api.token!, `/plans/${run.planId}/log`, 'x', 'text/plain'), 404, /plan not found/);
        assertError(await api.post(`/applies/${run.applyId}/actions/claim`), 404, /apply not found/);
        assertError(await put(ctx, api.token!, `/applies/${run.applyId}/log`, 'x', 'text/plain'), 404, /apply not found/);
        assert.equal((await org.owner.api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'plan_queued', who);
      }
      // The reader still reads the log (empty until uploaded); the outsider does not.
      const log = await reader.api.get(`/plans/${run.planId}/log`);
      assert.equal(log.status, 200);
      assert.equal(log.text, '');
      assertError(await outsider.owner.api.get(`/plans/${run.planId}/log`), 404);
      // A member who may queue runs is the pipeline.
      const pipeline = await memberWithAccess(ctx, org, { 'manage-workspaces': true });
      assertStatus(await pipeline.api.post(`/plans/${run.planId}/actions/claim`), 200);
    });

    it('a report after cancel, or for a discarded run, is 409', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const canceled = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, canceled.runId, 'plan_queued');
      assertStatus(await org.owner.api.post(`/plans/${canceled.planId}/actions/claim`), 200);
      assertStatus(await put(ctx, org.owner.token, `/plans/${canceled.planId}/json-output`, fixturePlan('numerics')), 200);
      assert.equal((await org.owner.api.post(`/runs/${canceled.runId}/actions/cancel`)).status, 202);
      await waitForRunStatus(org.owner.api, canceled.runId, 'canceled');
      assertError(await report(org.owner.api, 'plans', canceled.planId, { status: 'finished' }), 409, /canceled/);
      assertError(await put(ctx, org.owner.token, `/plans/${canceled.planId}/log`, 'x', 'text/plain'), 409);
      assert.equal((await org.owner.api.get(`/plans/${canceled.planId}`)).body.data.attributes.status, 'canceled');

      const discarded = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, discarded.runId, 'plan_queued');
      await pipelinePlans(ctx, org, discarded, fixturePlan('numerics'));
      await waitForRunStatus(org.owner.api, discarded.runId, 'planned');
      assert.equal((await org.owner.api.post(`/runs/${discarded.runId}/actions/discard`)).status, 202);
      await waitForRunStatus(org.owner.api, discarded.runId, 'discarded');
      assertError(await report(org.owner.api, 'plans', discarded.planId, { status: 'finished' }), 409, /discarded/);
      assertError(await org.owner.api.post(`/applies/${discarded.applyId}/actions/claim`), 409, /discarded/);
      assertError(await report(org.owner.api, 'applies', discarded.applyId, { status: 'finished' }), 409, /discarded/);
    });

    it('stages: the claim waits for the pre-plan stage; post-plan run tasks download THAT plan; no changes ends planned_and_finished', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent', 'auto-apply': true });
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages: ['pre_plan', 'post_plan', 'pre_apply'], 'enforcement-level': 'mandatory' });
      const callBack = async (request: any, status: 'passed' | 'failed') => {
        const answered = await new ApiClient(ctx.app, request.json.access_token).request(
          'PATCH', new URL(request.json.task_result_callback_url).pathname,
          { data: { type: 'task-results', attributes: { status } } },
        );
        assert.equal(answered.status, 200, answered.text);
      };
      const seen = mock.requests.length;
      const run = await agentRun(org.owner.api, workspace.id);
      const [prePlan] = (await mock.waitForRequests(seen + 1)).slice(seen);
      assert.equal(prePlan!.json.stage, 'pre_plan');
      await waitForRunStatus(org.owner.api, run.runId, 'pre_plan_running');
      assertError(await org.owner.api.post(`/plans/${run.planId}/actions/claim`), 409, /pre_plan_running/);
      await callBack(prePlan, 'passed');
      // After its pre-plan stage the run waits for the pipeline (pre_plan_completed; the plan is queued).
      await waitForRunStatus(org.owner.api, run.runId, 'pre_plan_completed');
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal((await org.owner.api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'pre_plan_completed');
      assert.equal((await org.owner.api.get(`/plans/${run.planId}`)).body.data.attributes.status, 'queued');

      const plan = fixturePlan('no_changes');
      await pipelinePlans(ctx, org, run, plan);
      const [postPlan] = (await mock.waitForRequests(seen + 2)).slice(seen + 1);
      assert.equal(postPlan!.json.stage, 'post_plan');
      // The run task downloads the plan the pipeline reported, byte for byte, with its access token.
      const downloaded = await ctx.app.inject({ method: 'GET', url: new URL(postPlan!.json.plan_json_api_url).pathname, headers: { authorization: `Bearer ${postPlan!.json.access_token}` } });
      assert.equal(downloaded.statusCode, 200);
      assert.ok(downloaded.rawPayload.equals(plan));
      await callBack(postPlan, 'passed');
      // No changes: finished after the post-plan stage, auto-apply or not; the apply is unreachable.
      const finished = await waitForRunStatus(org.owner.api, run.runId, 'planned_and_finished');
      assert.equal(finished.attributes['has-changes'], false);
      assert.equal((await org.owner.api.get(`/applies/${run.applyId}`)).body.data.attributes.status, 'unreachable');
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(mock.requests.length, seen + 2, 'no pre-apply request for a run with nothing to apply');
    });

    it('a replace fails the mandatory post-plan stage; an override lets the run go on to apply through the pipeline', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages: ['post_plan'], 'enforcement-level': 'mandatory' });
      const seen = mock.requests.length;
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      await pipelinePlans(ctx, org, run, fixturePlan('action_reason'));
      const [postPlan] = (await mock.waitForRequests(seen + 1)).slice(seen);
      // The run task judges the plan it downloads: it destroys null_resource.example, so it fails.
      const judged = JSON.parse((await ctx.app.inject({
        method: 'GET', url: new URL(postPlan!.json.plan_json_api_url).pathname, headers: { authorization: `Bearer ${postPlan!.json.access_token}` },
      })).body);
      const destroyed = judged.resource_changes.filter((change: any) => change.change.actions.includes('delete')).map((change: any) => change.address);
      assert.deepEqual(destroyed, ['null_resource.example']);
      const failed = await new ApiClient(ctx.app, postPlan!.json.access_token).request('PATCH', new URL(postPlan!.json.task_result_callback_url).pathname, {
        data: { type: 'task-results', attributes: { status: 'failed', message: `destroys ${destroyed.join(', ')}` } },
      });
      assert.equal(failed.status, 200, failed.text);
      const awaiting = await waitForRunStatus(org.owner.api, run.runId, 'post_plan_awaiting_decision');
      assert.equal(awaiting.attributes['has-changes'], true);
      assertError(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 409, /post_plan_awaiting_decision/);
      const stageId = awaiting.relationships['task-stages'].data[0].id;
      assertStatus(await org.owner.api.post(`/task-stages/${stageId}/actions/override`, { comment: 'planned replacement' }, { 'content-type': 'application/json' }), 200);
      await waitForRunStatus(org.owner.api, run.runId, 'post_plan_completed');
      assert.equal((await org.owner.api.post(`/runs/${run.runId}/actions/apply`)).status, 202);
      await waitForRunStatus(org.owner.api, run.runId, 'apply_queued');
      assertStatus(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 200);
      assertStatus(await report(org.owner.api, 'applies', run.applyId, { status: 'finished' }), 200);
      await waitForRunStatus(org.owner.api, run.runId, 'applied');
    });

    it('a plan with changes applies after auto-apply and the pre-apply stage, then the post-apply stage follows', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent', 'auto-apply': true });
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages: ['pre_apply', 'post_apply'] });
      const seen = mock.requests.length;
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      await pipelinePlans(ctx, org, run, fixturePlan('identity'));
      const plan = (await org.owner.api.get(`/plans/${run.planId}`)).body.data.attributes;
      assert.deepEqual(
        [plan['has-changes'], plan['resource-additions'], plan['resource-changes'], plan['resource-destructions'], plan['resource-imports']],
        [true, 0, 1, 0, 1],
      );
      const [preApply] = (await mock.waitForRequests(seen + 1)).slice(seen);
      assert.equal(preApply!.json.stage, 'pre_apply');
      await waitForRunStatus(org.owner.api, run.runId, 'pre_apply_running');
      assertError(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 409, /pre_apply_running/);
      const passed = await new ApiClient(ctx.app, preApply!.json.access_token).request('PATCH', new URL(preApply!.json.task_result_callback_url).pathname, {
        data: { type: 'task-results', attributes: { status: 'passed' } },
      });
      assert.equal(passed.status, 200);
      await waitForRunStatus(org.owner.api, run.runId, 'apply_queued');
      assertStatus(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 200);
      assertStatus(await report(org.owner.api, 'applies', run.applyId, { status: 'finished' }), 200);
      const [postApply] = (await mock.waitForRequests(seen + 2)).slice(seen + 1);
      assert.equal(postApply!.json.stage, 'post_apply');
      await waitForRunStatus(org.owner.api, run.runId, 'post_apply_running');
    });
  });

  describe(`agent uploads larger than one stored piece (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    it('a plan JSON and a log of several MiB are stored in pieces and served back byte for byte; a replaced upload leaves no pieces', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      assertStatus(await org.owner.api.post(`/plans/${run.planId}/actions/claim`), 200);
      // Multi-byte characters across piece boundaries, and an escaped address that equals its previous one.
      const plan = Buffer.from(JSON.stringify({
        format_version: '1.2',
        resource_changes: [{ address: 'a.b', previous_address: 'a.b', change: { actions: ['create'], after: { text: 'grüße ✓ '.repeat(300_000) } } }],
      }));
      assert.ok(plan.length > 3 * 1024 * 1024);
      const log = Buffer.from(Array.from({ length: 2 * 1024 * 1024 }, (_, i) => i % 251));
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('numerics')), 200);
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, 'first', 'text/plain'), 200);
      const uploaded = await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, plan);
      assertStatus(uploaded, 200);
      assert.equal(uploaded.body.data.attributes['resource-additions'], 1);
      assertStatus(await put(ctx, org.owner.token, `/plans/${run.planId}/log`, log, 'application/octet-stream'), 200);

      const auth = { authorization: `Bearer ${org.owner.token}` };
      const json = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${run.planId}/json-output`, headers: auth });
      assert.equal(json.statusCode, 200);
      assert.equal(json.headers['content-length'], String(plan.length));
      assert.ok(json.rawPayload.equals(plan), 'the plan JSON is served byte for byte');
      const servedLog = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${run.planId}/log`, headers: auth });
      assert.equal(servedLog.headers['content-length'], String(log.length));
      assert.ok(servedLog.rawPayload.equals(log), 'the log is served byte for byte');

      // Only the pieces of the two current uploads remain: 256 KiB each, the last one partial.
      const pieces = await ctx.handle.db.selectFrom('phase_upload_chunks').select(({ fn }) => fn.countAll<number>().as('count')).where('run_id', '=', run.runId).executeTakeFirstOrThrow();
      const expected = Math.ceil(plan.length / (256 * 1024)) + Math.ceil(log.length / (256 * 1024));
      assert.equal(Number(pieces.count), expected);
    });
  });

  describe(`agent claim timeout (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_AGENT_CLAIM_TIMEOUT: '1.5' });
    });
    after(() => ctx.close());

    it('a plan no pipeline claims errors the run with the reason, and the workspace goes to the next run', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const first = await agentRun(org.owner.api, workspace.id);
      const second = await agentRun(org.owner.api, workspace.id);
      const queued = await waitForRunStatus(org.owner.api, first.runId, 'plan_queued');
      const queuedAt = Date.parse(queued.attributes['status-timestamps']['plan-queued-at']);
      assert.equal((await org.owner.api.get(`/runs/${second.runId}`)).body.data.attributes.status, 'pending', 'the first run holds the workspace');
      const job = await ctx.handle.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', `agent.claim-timeout:${first.runId}:plan_queued`).executeTakeFirst();
      assert.ok(job, 'the deadline is a job written with the status change');
      assert.ok(Math.abs(Date.parse(job.run_at) - (queuedAt + 1500)) < 1000, `due ${Date.parse(job.run_at) - queuedAt} ms after plan_queued`);
      const errored = await waitForRunStatus(org.owner.api, first.runId, 'errored', 15_000);
      assert.ok(Date.parse(errored.attributes['status-timestamps']['errored-at']) - queuedAt >= 1400, 'not before the timeout');
      assert.match(errored.attributes['error-message'], /no pipeline claimed the plan within 1\.5 seconds/);
      // The workspace is free: the next run takes its turn (and is claimable at once).
      await waitForRunStatus(org.owner.api, second.runId, 'plan_queued', 10_000);
      assertStatus(await org.owner.api.post(`/plans/${second.planId}/actions/claim`), 200);
      assertError(await org.owner.api.post(`/plans/${first.planId}/actions/claim`), 409, /errored/);
    });

    it('a claimed plan is not errored by the claim timeout; an apply nobody claims is', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent', 'auto-apply': true });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      await pipelinePlans(ctx, org, run, fixturePlan('numerics'));
      await waitForRunStatus(org.owner.api, run.runId, 'apply_queued');
      const errored = await waitForRunStatus(org.owner.api, run.runId, 'errored', 15_000);
      assert.match(errored.attributes['error-message'], /no pipeline claimed the apply/);
      assert.equal((await org.owner.api.get(`/plans/${run.planId}`)).body.data.attributes.status, 'finished', 'the plan, claimed and reported, stands');
    });
  });

  describe(`agent phase timeout (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      // Short, but long enough for a pipeline's claim-upload-report through inject on a loaded machine.
      ctx = await createTestApp(dialect, { TEAMSTAGE_AGENT_PHASE_TIMEOUT: '2' });
    });
    after(() => ctx.close());

    it('a claimed phase with no report in time errors the run, through a delayed job written with the claim', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      const claimedAt = Date.now();
      assertStatus(await org.owner.api.post(`/plans/${run.planId}/actions/claim`), 200);
      const claimAnswered = Date.now();
      // Durable: the deadline is a job row in the database, due at claim + timeout, that any node takes.
      const job = await ctx.handle.db.selectFrom('jobs').selectAll().where('kind', '=', 'agent.phase-timeout').where('dedupe_key', '=', `agent.phase-timeout:${run.planId}`).executeTakeFirst();
      assert.ok(job, 'the timeout job was written with the claim');
      const due = Date.parse(job.run_at);
      assert.ok(due >= claimedAt + 2000 - 5 && due <= claimAnswered + 2000 + 5, `due ${due - claimedAt} ms after the claim was sent`);
      const errored = await waitForRunStatus(org.owner.api, run.runId, 'errored', 10_000);
      assert.ok(Date.now() - claimedAt >= 1950, 'not before the timeout');
      assert.ok(errored.attributes['status-timestamps']['errored-at']);
      assert.equal((await org.owner.api.get(`/plans/${run.planId}`)).body.data.attributes.status, 'errored');
      // Too late: the pipeline's report is refused.
      assertError(await put(ctx, org.owner.token, `/plans/${run.planId}/json-output`, fixturePlan('numerics')), 409, /errored/);
      assertError(await report(org.owner.api, 'plans', run.planId, { status: 'finished' }), 409, /errored/);
    });

    it('the apply times out the same way', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent', 'auto-apply': true });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      await pipelinePlans(ctx, org, run, fixturePlan('numerics'));
      await waitForRunStatus(org.owner.api, run.runId, 'apply_queued');
      assertStatus(await org.owner.api.post(`/applies/${run.applyId}/actions/claim`), 200);
      await waitForRunStatus(org.owner.api, run.runId, 'errored', 10_000);
      assert.equal((await org.owner.api.get(`/applies/${run.applyId}`)).body.data.attributes.status, 'errored');
      assert.equal((await org.owner.api.get(`/plans/${run.planId}`)).body.data.attributes.status, 'finished');
      assertError(await report(org.owner.api, 'applies', run.applyId, { status: 'finished' }), 409, /errored/);
    });

    it('a phase reported in time is not timed out', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'execution-mode': 'agent' });
      const run = await agentRun(org.owner.api, workspace.id);
      await waitForRunStatus(org.owner.api, run.runId, 'plan_queued');
      await pipelinePlans(ctx, org, run, fixturePlan('numerics'));
      await waitForRunStatus(org.owner.api, run.runId, 'planned');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await org.owner.api.get(`/runs/${run.runId}`)).body.data.attributes.status, 'planned');
    });
  });
}
