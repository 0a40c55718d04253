import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { expectedSignature, MockTaskService, type RecordedTaskRequest } from '../helpers/mock-task-service.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';
import {
  FAIL_OUTCOMES, HMAC_KEY, ScriptedTaskService, gatedWorkspace, sleep, stagesOf, startListeningApp, startRun, waitForStageStatus,
  type GatedWorkspace,
} from '../helpers/task-stage-scenario.js';
import { waitUntil } from '../helpers/wait-until.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const PAYLOAD_KEYS = [
  'access_token', 'capabilities', 'configuration_version_download_url', 'configuration_version_id', 'is_speculative',
  'organization_name', 'payload_version', 'run_app_url', 'run_created_at', 'run_created_by', 'run_id', 'run_message', 'stage',
  'task_result_callback_url', 'task_result_enforcement_level', 'task_result_id', 'vcs_branch', 'vcs_commit_url',
  'vcs_pull_request_url', 'vcs_repo_url', 'workspace_app_url', 'workspace_id', 'workspace_name', 'workspace_working_directory',
];

/** Every field of the run task request body, checked against what the API says about the run, plus the signature. */
async function assertDelivery(ctx: TestContext, request: RecordedTaskRequest, gated: GatedWorkspace, runId: string, stage: string): Promise<void> {
  assert.equal(request.method, 'POST');
  assert.equal(request.signatureValid, true, 'X-TFC-Task-Signature is the HMAC-SHA512 of the exact body');
  assert.equal(request.signature, expectedSignature(request.body, HMAC_KEY));
  assert.match(String(request.headers['content-type']), /^application\/json/);
  assert.match(String(request.headers['user-agent']), /^Teamstage\//);
  const payload = request.json;
  const base = ctx.config.baseUrl;
  const withPlan = stage !== 'pre_plan';
  assert.deepEqual(Object.keys(payload).sort(), [...PAYLOAD_KEYS, ...(withPlan ? ['plan_json_api_url'] : [])].sort());
  const run = (await gated.api.get(`/runs/${runId}`)).body.data;
  const stages = await stagesOf(gated.api, runId);
  const resultIds = stages.find((candidate) => candidate.attributes.stage === stage).relationships['task-results'].data.map((r: any) => r.id);
  assert.ok(resultIds.includes(payload.task_result_id));
  const result = (await gated.api.get(`/task-results/${payload.task_result_id}`)).body.data;
  assert.equal(payload.payload_version, 1);
  assert.equal(payload.stage, stage);
  assert.ok(typeof payload.access_token === 'string' && payload.access_token.length >= 43, 'at least 32 random bytes');
  assert.deepEqual(payload.capabilities, { outcomes: true });
  assert.equal(payload.configuration_version_id, gated.workspace.configurationVersionId);
  assert.equal(payload.configuration_version_download_url, `${base}/api/v2/configuration-versions/${gated.workspace.configurationVersionId}/download`);
  assert.equal(payload.is_speculative, run.attributes['plan-only']);
  assert.equal(payload.organization_name, gated.org.name);
  if (withPlan) assert.equal(payload.plan_json_api_url, `${base}/api/v2/plans/${run.relationships.plan.data.id}/json-output`);
  assert.equal(payload.run_app_url, `${base}/app/${gated.org.name}/workspaces/${gated.workspace.name}/runs/${runId}`);
  assert.equal(payload.run_created_at, run.attributes['created-at']);
  assert.equal(payload.run_created_by, gated.org.owner.username);
  assert.equal(payload.run_id, runId);
  assert.equal(payload.run_message, run.attributes.message);
  assert.equal(payload.task_result_callback_url, `${base}/api/v2/task-results/${payload.task_result_id}/callback`);
  assert.equal(payload.task_result_enforcement_level, result.attributes['workspace-task-enforcement-level']);
  for (const key of ['vcs_branch', 'vcs_commit_url', 'vcs_pull_request_url', 'vcs_repo_url']) assert.equal(payload[key], null, key);
  assert.equal(payload.workspace_app_url, `${base}/app/${gated.org.name}/workspaces/${gated.workspace.name}`);
  assert.equal(payload.workspace_id, gated.workspace.id);
  assert.equal(payload.workspace_name, gated.workspace.name);
  assert.equal(payload.workspace_working_directory, '');
}

async function onlyStage(api: ApiClient, runId: string): Promise<any> {
  const stages = await stagesOf(api, runId);
  assert.equal(stages.length, 1);
  return stages[0];
}

async function attemptsOf(ctx: TestContext, resultId: string) {
  return ctx.handle.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).orderBy('attempt').execute();
}

for (const dialect of testDialects()) {
  describe(`task stages end to end over a real run task service (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect, SIMULATED_PLAN_CHANGES);
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it('advisory fail: the stage passes, the result keeps failed with its outcomes, the run goes on', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'advisory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'passed');
      assert.equal(stage.attributes.stage, 'post_plan');
      const timestamps = stage.attributes['status-timestamps'];
      assert.match(timestamps['running-at'], ISO_Z);
      assert.match(timestamps['passed-at'], ISO_Z);
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'failed');
      assert.equal(result.attributes.message, 'two findings\nsee outcomes');
      assert.equal(result.attributes.url, 'https://external.service.example/r/1');
      assert.equal(result.attributes['workspace-task-enforcement-level'], 'advisory');
      assert.match(result.attributes['status-timestamps']['failed-at'], ISO_Z);
      const [request] = service.deliveries(resultId);
      await assertDelivery(ctx, request!, gated, runId, 'post_plan');
    });

    it('mandatory fail → awaiting_override → override by a manage-run-tasks member → running → passed → the run goes on', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'awaiting_override');
      assert.deepEqual(stage.attributes.actions, { 'is-overridable': true });
      const awaitingAt = stage.attributes['status-timestamps']['awaiting-override-at'];
      assert.match(awaitingAt, ISO_Z);

      const team = await createTeam(ctx, gated.org, { 'organization-access': { 'manage-run-tasks': true } });
      const overrider = await addMember(ctx, gated.org);
      await addToTeam(gated.org, team.id, overrider.username);
      const seen = await overrider.api.get(`/task-stages/${stage.id}`);
      assert.deepEqual(seen.body.data.attributes.permissions, { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': true });

      const overridden = await overrider.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'reviewed' }, { 'content-type': 'application/json' });
      assert.equal(overridden.status, 200, overridden.text);
      const attributes = overridden.body.data.attributes;
      assert.equal(attributes.status, 'running');
      assert.equal(attributes['status-timestamps']['awaiting-override-at'], awaitingAt);
      // The stage's history is kept: its first start stays, and the override has a time of its own.
      assert.equal(attributes['status-timestamps']['running-at'], stage.attributes['status-timestamps']['running-at']);
      assert.ok(attributes['status-timestamps']['overridden-at'] >= awaitingAt);
      assert.deepEqual(attributes.actions, { 'is-overridable': false });
      assert.deepEqual(attributes.permissions, { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': true });

      const passed = await waitForStageStatus(gated.api, stage.id, 'passed');
      assert.match(passed.data.attributes['status-timestamps']['passed-at'], ISO_Z);
      assert.equal(passed.included[0].attributes.status, 'failed', 'the result itself stays failed');
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const recorded = await ctx.handle.db.selectFrom('task_stage_overrides').selectAll().where('task_stage_id', '=', stage.id).execute();
      assert.equal(recorded.length, 1);
      assert.equal(recorded[0]!.comment, 'reviewed');
      assert.equal(recorded[0]!.overridden_by, `user:${overrider.id}`);

      // Override refused: 409 on a passed stage.
      assertError(await gated.api.post(`/task-stages/${stage.id}/actions/override`), 409, /passed/);
    });

    it('override refused: 403 for visible callers without the right (incl. the organization token), 404 when invisible', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const stage = await onlyStage(gated.api, runId);

      const readers = await createTeam(ctx, gated.org, { 'organization-access': { 'read-workspaces': true, 'manage-policy-overrides': true } });
      const reader = await addMember(ctx, gated.org);
      await addToTeam(gated.org, readers.id, reader.username);
      const shown = await reader.api.get(`/task-stages/${stage.id}`);
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.body.data.attributes.permissions, { 'can-override-policy': true, 'can-override-tasks': false, 'can-override': false });
      assertError(await reader.api.post(`/task-stages/${stage.id}/actions/override`), 403);

      const orgToken = await gated.api.post(`/organizations/${gated.org.name}/authentication-token`, {});
      assert.equal(orgToken.status, 201, orgToken.text);
      const asOrg = new ApiClient(ctx.app, orgToken.body.data.attributes.token);
      const byOrg = await asOrg.get(`/task-stages/${stage.id}`);
      assert.equal(byOrg.status, 200);
      assert.equal(byOrg.body.data.attributes.permissions['can-override'], false);
      assertError(await asOrg.post(`/task-stages/${stage.id}/actions/override`), 403);

      const memberWithoutRights = await addMember(ctx, gated.org);
      assertError(await memberWithoutRights.api.get(`/task-stages/${stage.id}`), 404);
      assertError(await memberWithoutRights.api.post(`/task-stages/${stage.id}/actions/override`), 404);
      const outsider = await createUser(ctx);
      assertError(await outsider.api.post(`/task-stages/${stage.id}/actions/override`), 404);
      assertError(await outsider.api.get(`/task-results/${stage.relationships['task-results'].data[0].id}`), 404);
      assertError(await outsider.api.get(`/runs/${runId}/task-stages`), 404);
      assertError(await gated.api.post('/task-stages/ts-doesnotexist12345/actions/override'), 404);
      // A comment of the wrong type is a 422, but only for someone who may see the stage.
      assertError(await gated.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 5 }), 422);
      assertError(await outsider.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 5 }), 404);

      const still = await gated.api.get(`/task-stages/${stage.id}`);
      assert.equal(still.body.data.attributes.status, 'awaiting_override', 'refused overrides change nothing');
    });

    it('running then passed callbacks: both timestamps, the run goes on', async () => {
      const gated = await gatedWorkspace(ctx, service, 'progress', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const stage = await onlyStage(gated.api, runId);
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'passed');
      assert.equal(result.attributes.message, 'done');
      const timestamps = result.attributes['status-timestamps'];
      assert.match(timestamps['running-at'], ISO_Z);
      assert.match(timestamps['passed-at'], ISO_Z);
      assert.ok(timestamps['running-at'] < timestamps['passed-at']);
      // The service records an answer once it has read it, which can be just after the run moved on.
      await waitUntil(() => service.callbacks.filter((callback) => callback.resultId === resultId).length >= 2, 15_000, 'the service never recorded both answers');
      assert.deepEqual(
        service.callbacks.filter((callback) => callback.resultId === resultId).map((callback) => [callback.status, callback.httpStatus]),
        [['running', 200], ['passed', 200]],
      );
    });

    it('500s: every attempt is recorded and the result errors after the last retry', async () => {
      const gated = await gatedWorkspace(ctx, service, 'error500', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'errored');
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'errored');
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'errored');
      assert.match(result.attributes.message, /500/);
      const requests = service.deliveries(resultId);
      assert.equal(requests.length, 3, 'the first try and two retries');
      for (const request of requests) await assertDelivery(ctx, request, gated, runId, 'post_plan');
      assert.equal(new Set(requests.map((request) => request.json.access_token)).size, 3, 'a fresh token per attempt');
      for (let i = 1; i < requests.length; i++) {
        assert.ok(requests[i]!.receivedAt - requests[i - 1]!.receivedAt >= 90, 'retries wait for the configured delay');
      }
      const attempts = await attemptsOf(ctx, resultId);
      assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome, a.http_status]), [[1, 'rejected', 500], [2, 'rejected', 500], [3, 'rejected', 500]]);
      assert.ok(attempts.every((a) => a.finished_at && ISO_Z.test(a.finished_at)));
    });

    it('a closed port: unreachable after the retries', async () => {
      const doomed = await MockTaskService.start({ hmacKey: HMAC_KEY });
      const gated = await gatedWorkspace(ctx, service, 'pass', { enforcement: 'mandatory', url: doomed.url });
      await doomed.close(); // the port is closed now: connections are refused
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'errored');
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'unreachable');
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'unreachable');
      assert.match(result.attributes['status-timestamps']['unreachable-at'], ISO_Z);
      const attempts = await attemptsOf(ctx, resultId);
      assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome]), [[1, 'network_error'], [2, 'network_error'], [3, 'network_error']]);
      assert.match(attempts[2]!.error ?? '', /ECONNREFUSED|unreachable/);
    });

    it('cancel while the stage runs: the result and the stage are canceled, and a later callback is 409', async () => {
      const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_running');
      const stage = await onlyStage(gated.api, runId);
      const resultId = stage.relationships['task-results'].data[0].id;
      await waitUntil(() => service.deliveries(resultId).length > 0, 15_000, 'the request never went out');
      const payload = service.deliveries(resultId)[0]?.json;
      assert.ok(payload, 'the request went out before the cancel');
      const canceled = await gated.api.post(`/runs/${runId}/actions/cancel`, {});
      assert.equal(canceled.status, 202, canceled.text);
      await waitForRunStatus(gated.api, runId, 'canceled');
      const closed = await gated.api.get(`/task-stages/${stage.id}?include=task-results`);
      assert.equal(closed.body.data.attributes.status, 'canceled');
      assert.match(closed.body.data.attributes['status-timestamps']['canceled-at'], ISO_Z);
      assert.equal(closed.body.included[0].attributes.status, 'canceled');
      assert.equal(await service.callBack(payload, { status: 'passed' }), 409);
      // No deadline job is left to error it later (waiting out a callback timeout here would measure the machine).
      const deadlines = await ctx.handle.db.selectFrom('jobs').select('dedupe_key')
        .where('dedupe_key', 'in', [`task-result.callback-timeout:${resultId}`, `task-result.max-duration:${resultId}`]).execute();
      assert.deepEqual(deadlines, [], 'the canceled result keeps no deadline job');
      assert.equal((await gated.api.get(`/task-results/${resultId}`)).body.data.attributes.status, 'canceled');
    });

    it('discard while awaiting an override: the stage becomes failed', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const stage = await onlyStage(gated.api, runId);
      const discarded = await gated.api.post(`/runs/${runId}/actions/discard`, {});
      assert.equal(discarded.status, 202, discarded.text);
      await waitForRunStatus(gated.api, runId, 'discarded');
      const after = (await gated.api.get(`/task-stages/${stage.id}`)).body.data;
      assert.equal(after.attributes.status, 'failed');
      assert.match(after.attributes['status-timestamps']['failed-at'], ISO_Z);
      assert.match(after.attributes['status-timestamps']['awaiting-override-at'], ISO_Z);
      assertError(await gated.api.post(`/task-stages/${stage.id}/actions/override`), 409);
    });

    it('outcomes are served at /task-results/:id/outcomes, paginated', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'advisory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const resultId = (await onlyStage(gated.api, runId)).relationships['task-results'].data[0].id;
      const listed = await gated.api.get(`/task-results/${resultId}/outcomes`);
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.data.length, 2);
      const [first, second] = listed.body.data;
      assert.equal(first.type, 'task-result-outcomes');
      assert.deepEqual(
        { ...first.attributes, 'created-at': undefined },
        { ...FAIL_OUTCOMES[0]!.attributes, 'created-at': undefined },
      );
      assert.match(first.attributes['created-at'], ISO_Z);
      assert.deepEqual(first.relationships['task-result'].data, { id: resultId, type: 'task-results' });
      assert.equal(second.attributes['outcome-id'], 'PRTNR-CC-TF-128');
      assert.equal(second.attributes.body, null);
      assert.deepEqual(second.attributes.tags, {});
      assert.equal(listed.body.meta.pagination['total-count'], 2);
      const paged = await gated.api.get(`/task-results/${resultId}/outcomes?page%5Bsize%5D=1&page%5Bnumber%5D=2`);
      assert.equal(paged.body.data.length, 1);
      assert.equal(paged.body.data[0].attributes['outcome-id'], 'PRTNR-CC-TF-128');
      assertError(await (await createUser(ctx)).api.get(`/task-results/${resultId}/outcomes`), 404);
    });

    it('the configuration and the plan JSON download with the access token while the result is open, not without it or after', async () => {
      const gated = await gatedWorkspace(ctx, service, 'download', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const resultId = (await onlyStage(gated.api, runId)).relationships['task-results'].data[0].id;
      await waitUntil(() => service.downloads.some((d) => d.resultId === resultId), 15_000, 'the task service never downloaded');
      const record = service.downloads.find((d) => d.resultId === resultId);
      assert.deepEqual(record, {
        resultId,
        configurationWithToken: 200,
        configurationWithoutToken: 401,
        configurationWrongToken: 401,
        planWithToken: 200,
        planWithoutToken: 401,
        configurationAfterFinal: 401,
        planAfterFinal: 401,
      });
    });

    it('a task that answered 500 but called back running is not sent again, and its verdict counts', async () => {
      const gated = await gatedWorkspace(ctx, service, 'flaky', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const resultId = (await onlyStage(gated.api, runId)).relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'passed');
      assert.equal(result.attributes.message, 'passed after a 500');
      const acknowledged = service.runningAcknowledgedAt.get(resultId);
      assert.ok(acknowledged, 'the running callback was accepted');
      assert.deepEqual(service.deliveries(resultId).filter((request) => request.receivedAt > acknowledged), [], 'no retry once it runs');
    });

    it('all four stages: pre_plan has no plan JSON link, every stage passes in order, the run applies', async () => {
      const gated = await gatedWorkspace(ctx, service, 'pass', {
        enforcement: 'mandatory',
        stages: ['post_apply', 'pre_plan', 'pre_apply', 'post_plan'],
        autoApply: true,
      });
      const runId = await startRun(gated, { 'auto-apply': true });
      await waitForRunStatus(gated.api, runId, 'post_apply_completed', 15_000);
      const stages = await stagesOf(gated.api, runId);
      assert.deepEqual(stages.map((s) => s.attributes.stage), ['pre_plan', 'post_plan', 'pre_apply', 'post_apply']);
      assert.ok(stages.every((s) => s.attributes.status === 'passed'));
      for (const stage of stages) {
        const resultId = stage.relationships['task-results'].data[0].id;
        const [request] = service.deliveries(resultId);
        await assertDelivery(ctx, request!, gated, runId, stage.attributes.stage);
      }
      const passedAt = stages.map((s) => s.attributes['status-timestamps']['passed-at']);
      assert.deepEqual([...passedAt].sort(), passedAt, 'stages pass in run order');
    });
  });
}

for (const dialect of testDialects()) {
  describe(`the callback timeout (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '1' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it('no callback: the result errors after the callback timeout, and so do the stage and the run', async () => {
      const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      const started = Date.now();
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'errored');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 1000, `errored after ${elapsed} ms, before the 1 s callback timeout`);
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'errored');
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'errored');
      assert.match(result.attributes.message, /No callback/);
      assert.equal(service.deliveries(resultId).length, 1, 'an accepted request is not sent again');
      // A late callback is refused: the result is final.
      const late = await service.callBack({ ...service.deliveries(resultId)[0]!.json }, { status: 'passed' });
      assert.equal(late, 409);
    });
  });

  describe(`task result total duration (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      // Callbacks keep coming (so the callback timeout never fires), but the total time is capped.
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600', TEAMSTAGE_TASK_MAX_DURATION: '1.5' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it('a result still running after TEAMSTAGE_TASK_MAX_DURATION errors, and its heartbeats are then refused', async () => {
      const gated = await gatedWorkspace(ctx, service, 'heartbeat', { enforcement: 'mandatory' });
      const started = Date.now();
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'errored');
      assert.ok(Date.now() - started >= 1500, 'not before the maximum duration');
      const stage = await onlyStage(gated.api, runId);
      assert.equal(stage.attributes.status, 'errored');
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'errored');
      assert.match(result.attributes.message, /did not finish within 1.5 s/);
      assert.match(result.attributes['status-timestamps']['running-at'], ISO_Z);
      // The task beats every 250 ms until refused: its next beat after the result errored is a 409.
      await waitUntil(() => service.callbacks.some((c) => c.resultId === resultId && c.httpStatus === 409), 20_000, 'no heartbeat was refused');
      // How many beats fit in 1.5 s depends on the machine's load; what they got does not: every beat sent while
      // the result ran was accepted, the first one after it errored was refused, and the task stopped there.
      const answers = service.callbacks.filter((c) => c.resultId === resultId).map((c) => c.httpStatus);
      assert.ok(answers.length >= 2, `heartbeats: ${answers.join(' ')}`);
      assert.deepEqual(answers, [...answers.slice(0, -1).map(() => 200), 409], `accepted while it ran, then refused once final: ${answers.join(' ')}`);
    });

    it('heartbeats move one callback deadline instead of piling up a job each', async () => {
      const gated = await gatedWorkspace(ctx, service, 'heartbeat', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      let resultId: string | undefined;
      for (let i = 0; i < 200 && !resultId; i++) {
        const stage = (await stagesOf(gated.api, runId))[0];
        const candidate = stage?.relationships['task-results'].data[0]?.id;
        if (candidate && service.callbacks.filter((c) => c.resultId === candidate && c.httpStatus === 200).length >= 3) resultId = candidate;
        else await sleep(20);
      }
      assert.ok(resultId, 'three heartbeats were accepted');
      const deadlines = await ctx.handle.db
        .selectFrom('jobs')
        .select('run_at')
        .where('kind', '=', 'task-result.callback-timeout')
        .where('payload', 'like', `%${resultId}%`)
        .execute();
      assert.equal(deadlines.length, 1, `one pending callback deadline, not ${deadlines.length}`);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`examples/run-task-service against Teamstage (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    let example: import('node:http').Server;
    let exampleUrl: string;
    before(async () => {
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      // @ts-expect-error: a plain JavaScript example without type declarations
      const { createServer } = await import('../../examples/run-task-service/server.mjs');
      example = createServer({ hmacKey: HMAC_KEY, failWorkspacePattern: 'prod', denyResourceTypes: [], allowDestroy: false, verdictDelayMs: 0, quiet: true });
      await new Promise<void>((resolve) => example.listen(0, '127.0.0.1', resolve));
      exampleUrl = `http://127.0.0.1:${(example.address() as import('node:net').AddressInfo).port}/`;
    });
    after(async () => {
      example.closeAllConnections();
      await new Promise((resolve) => example.close(resolve));
      await ctx.close();
    });

    it('the optional workspace-name rule: prod fails and is overridden, dev passes on its empty plan; outcomes and downloads work', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const { createRunTask, attachRunTask, createRunnableWorkspace, createRun } = await import('../helpers/run-fixtures.js');
      const task = await createRunTask(api, org.name, exampleUrl, { 'hmac-key': HMAC_KEY });
      const outcomesOf = async (runId: string) => {
        const [stage] = await stagesOf(api, runId);
        const resultId = stage.relationships['task-results'].data[0].id;
        return { stage, result: (await api.get(`/task-results/${resultId}`)).body.data, outcomes: (await api.get(`/task-results/${resultId}/outcomes`)).body.data };
      };

      const prod = await createRunnableWorkspace(ctx, api, org.name, { name: 'payments-prod' });
      await attachRunTask(api, prod.id, task.id, { 'enforcement-level': 'mandatory' });
      const prodRun = (await createRun(api, prod.id, { message: 'try the name check' })).data.id;
      await waitForRunStatus(api, prodRun, 'post_plan_awaiting_decision');
      const failed = await outcomesOf(prodRun);
      assert.equal(failed.result.attributes.status, 'failed');
      assert.match(failed.result.attributes.message, /contains "prod"/);
      assert.equal(failed.outcomes[0].attributes['outcome-id'], 'NAME-001');
      assert.deepEqual(failed.outcomes[0].attributes.tags.Status, [{ label: 'Denied', level: 'error' }]);
      const overridden = await api.post(`/task-stages/${failed.stage.id}/actions/override`, { comment: 'reviewed' });
      assert.equal(overridden.status, 200, overridden.text);
      await waitForRunStatus(api, prodRun, 'post_plan_completed');

      const dev = await createRunnableWorkspace(ctx, api, org.name, { name: 'payments-dev' });
      await attachRunTask(api, dev.id, task.id, { 'enforcement-level': 'mandatory' });
      const devRun = (await createRun(api, dev.id, {})).data.id;
      await waitForRunStatus(api, devRun, 'post_plan_completed');
      const passed = await outcomesOf(devRun);
      assert.equal(passed.stage.attributes.status, 'passed');
      assert.equal(passed.result.attributes.status, 'passed');
      assert.match(passed.result.attributes.message, /none of the 1 resource changes/, 'the example read the plan (its one simulated change) with its token');
      assert.ok(passed.result.attributes['status-timestamps']['running-at'], 'the example reports running first');
    });
  });
}
