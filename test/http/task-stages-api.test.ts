import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newAccessToken } from '../../src/delivery/access-tokens.js';
import { ApiClient } from '../helpers/api-client.js';
import { assertError } from '../helpers/assertions.js';
import { createUser } from '../helpers/fixtures.js';
import { attachRunTask, createRunTask, waitForRunStatus } from '../helpers/run-fixtures.js';
import {
  ScriptedTaskService, gatedWorkspace, sleep, stagesOf, startListeningApp, startRun, waitForStageStatus, HMAC_KEY,
} from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function callbackBody(status: unknown, extra: Record<string, unknown> = {}, relationships?: unknown) {
  return { data: { type: 'task-results', attributes: { status, ...extra }, ...(relationships ? { relationships } : {}) } };
}

for (const dialect of testDialects()) {
  describe(`task stages API: callbacks, reads, idempotency (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      // Callback deadline far away: results stay open until a test says otherwise.
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    /** A run whose only result is waiting for a callback; answers its ids and the token sent to the task. */
    async function openResult() {
      const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_running');
      const [stage] = await stagesOf(gated.api, runId);
      const resultId = stage.relationships['task-results'].data[0].id as string;
      await waitUntil(() => service.tokens.has(resultId), 15_000, 'the task service never received its request');
      const token = service.tokens.get(resultId)?.[0];
      assert.ok(token, 'the task received its request');
      return { gated, runId, stageId: stage.id as string, resultId, token, callback: new ApiClient(ctx.app, token) };
    }

    it('callback: 401 without or with a wrong token, 404 for an unknown result, 422 for a bad document', async () => {
      const { resultId, callback, gated } = await openResult();
      const path = `/task-results/${resultId}/callback`;
      assertError(await new ApiClient(ctx.app).patch(path, callbackBody('passed')), 401);
      assertError(await new ApiClient(ctx.app, 'not-the-token').patch(path, callbackBody('passed')), 401);
      assertError(await gated.api.patch(path, callbackBody('passed')), 401, /access token/);
      assertError(await callback.patch('/task-results/taskrs-doesnotexist1234/callback', callbackBody('passed')), 404);
      const badStatus = assertError(await callback.patch(path, callbackBody('errored')), 422);
      assert.equal(badStatus.source?.pointer, '/data/attributes/status');
      assertError(await callback.patch(path, callbackBody(7)), 422);
      assertError(await callback.patch(path, { data: { type: 'teams', attributes: { status: 'passed' } } }), 422);
      assertError(await callback.patch(path, {}), 422);
      assertError(await callback.patch(path, '{"data": '), 422);
      assertError(await callback.patch(path, callbackBody('passed', { message: 5 })), 422);
      const badOutcome = callbackBody('passed', {}, { outcomes: { data: [{ type: 'task-result-outcomes', attributes: { description: 'no id' } }] } });
      assertError(await callback.patch(path, badOutcome), 422);
      const shown = await gated.api.get(`/task-results/${resultId}`);
      assert.equal(shown.body.data.attributes.status, 'pending', 'rejected callbacks change nothing');
    });

    it('callback: running (200, running-at), then passed (200), then 409 for anything more', async () => {
      const { resultId, stageId, callback, gated, runId } = await openResult();
      const path = `/task-results/${resultId}/callback`;
      const running = await callback.patch(path, callbackBody('running', { message: 'half way' }));
      assert.equal(running.status, 200, running.text);
      assert.equal(running.body.data.type, 'task-results');
      assert.equal(running.body.data.attributes.status, 'running');
      assert.match(running.body.data.attributes['status-timestamps']['running-at'], ISO_Z);
      assert.deepEqual((await gated.api.get(`/task-results/${resultId}`)).body.data, running.body.data, 'the answer is the stored result');
      assert.equal((await gated.api.get(`/task-stages/${stageId}`)).body.data.attributes.status, 'running');

      const passed = await callback.patch(path, callbackBody('passed', { message: 'fine', url: 'https://x.example/1' }));
      assert.equal(passed.status, 200, passed.text);
      assert.equal(passed.body.data.attributes.status, 'passed');
      assert.equal(passed.body.data.attributes.url, 'https://x.example/1');
      assert.deepEqual((await gated.api.get(`/task-results/${resultId}`)).body.data, passed.body.data, 'the answer is the stored result');
      const timestamps = passed.body.data.attributes['status-timestamps'];
      assert.deepEqual(Object.keys(timestamps).sort(), ['passed-at', 'running-at']);
      await waitForStageStatus(gated.api, stageId, 'passed');
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');

      assertError(await callback.patch(path, callbackBody('failed')), 409);
      assertError(await callback.patch(path, callbackBody('running')), 409);
      assertError(await callback.patch(path, callbackBody('bogus')), 409, /passed/);
      assertError(await new ApiClient(ctx.app, 'wrong').patch(path, callbackBody('failed')), 401);
      const after = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(after.attributes.status, 'passed');
      assert.deepEqual(after.attributes['status-timestamps'], timestamps, 'a final status is written once');
    });

    it('an earlier attempt\'s token still works for the callback (the service may have received it)', async () => {
      const { resultId, token, gated } = await openResult();
      // Issue a second token as a retry would; the first must stay valid.
      const { token: second, digest } = newAccessToken();
      const started = await ctx.services.repositories.deliveries.startDelivery({ resultId, runId: 'run-x', tokenHash: digest, attempt: 2, url: 'http://127.0.0.1:9/' });
      assert.ok(started, 'the result is still pending');
      assert.notEqual(second, token);
      assert.equal((await ctx.services.taskAccessTokens.grantOf(token))?.taskResultId, resultId);
      assert.equal((await ctx.services.taskAccessTokens.grantOf(second))?.taskResultId, resultId);
      const row = await ctx.handle.db.selectFrom('task_results').select('access_token_hash').where('id', '=', resultId).executeTakeFirstOrThrow();
      assert.ok(row.access_token_hash && !row.access_token_hash.includes(second) && row.access_token_hash.length === 64, 'only a digest is stored');
      const done = await new ApiClient(ctx.app, token).patch(`/task-results/${resultId}/callback`, callbackBody('passed'));
      assert.equal(done.status, 200, done.text);
      assert.equal((await gated.api.get(`/task-results/${resultId}`)).body.data.attributes.status, 'passed');
    });

    it('a callback timeout that judged a result due does not error it once a delivery refreshed it meanwhile', {
      skip: dialect !== 'postgres' && 'SQLite runs one transaction at a time: the refresh cannot land in between',
    }, async () => {
      const { resultId, gated } = await openResult();
      const { taskStageRunner: runner, repositories } = ctx.services;
      const stages = repositories.taskStages;
      // markDelivered takes no stage lock, so its refresh can land between the timeout's look and its write.
      let refreshed: Promise<void> | undefined;
      const updateResult = stages.updateResult;
      stages.updateResult = async function (this: typeof stages, executor, ...rest) {
        if (executor !== ctx.handle.db) await refreshed; // the timeout's write waits for the refresh
        return updateResult.call(this, executor, ...rest);
      };
      try {
        const due = () => {
          refreshed = runner.markDelivered(ctx.handle.db, resultId, gated.org.name);
          return true;
        };
        const finished = await runner.finishResult(resultId, 'errored', { message: 'No callback in time.' }, due);
        assert.equal(finished.outcome, 'final', 'the timeout is declined');
      } finally {
        stages.updateResult = updateResult;
      }
      const row = await ctx.handle.db.selectFrom('task_results').select('status').where('id', '=', resultId).executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');
    });

    it('a running callback writes from the row read with its token only while that row is unchanged', async () => {
      const { resultId, token, gated } = await openResult();
      const { taskStageRunner: runner, taskAccessTokens } = ctx.services;
      const row = () => ctx.handle.db.selectFrom('task_results').selectAll().where('id', '=', resultId).executeTakeFirstOrThrow();
      const deadline = () =>
        ctx.handle.db.selectFrom('jobs').select('run_at').where('dedupe_key', '=', `task-result.callback-timeout:${resultId}`).executeTakeFirst();
      const seen = (await taskAccessTokens.grantOf(token))!.result;
      assert.equal(seen.status, 'pending');
      assert.equal(seen.organization_name, gated.org.name);

      // As read: written, with its callback deadline moved to 600 s after the write.
      const first = await runner.markRunning(resultId, { message: 'first' }, seen);
      assert.equal(first.outcome, 'changed');
      const afterFirst = await row();
      assert.equal(afterFirst.status, 'running');
      assert.equal(afterFirst.message, 'first');
      assert.deepEqual(first.result, { ...afterFirst, organization_name: gated.org.name }, 'the answer is the row as written');
      assert.equal((await deadline())?.run_at, new Date(Date.parse(afterFirst.updated_at) + 600_000).toISOString());

      // The same stale read again: the result moved on, so the write goes the locked way, from the fresh row.
      await sleep(5);
      const second = await runner.markRunning(resultId, { message: 'second' }, seen);
      assert.equal(second.outcome, 'changed');
      const afterSecond = await row();
      assert.equal(afterSecond.message, 'second');
      assert.equal(JSON.parse(afterSecond.status_timestamps)['running-at'], JSON.parse(afterFirst.status_timestamps)['running-at'], 'running-at keeps its first time');
      assert.equal((await deadline())?.run_at, new Date(Date.parse(afterSecond.updated_at) + 600_000).toISOString());

      // Final since it was read: nothing is written.
      assert.equal((await runner.finishResult(resultId, 'passed')).outcome, 'changed');
      const late = await runner.markRunning(resultId, { message: 'late' }, seen);
      assert.equal(late.outcome, 'final');
      const final = await row();
      assert.equal(final.status, 'passed');
      assert.equal(final.message, 'second');
      assert.equal(await deadline(), undefined, 'no deadline for a final result');
    });

    it('a delivery job run again after its request went out sends nothing more, a later attempt is sent', async () => {
      const { resultId } = await openResult();
      const attempts = () => ctx.handle.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).orderBy('attempt').execute();
      await waitUntil(async () => (await attempts())[0]?.finished_at != null);
      const [first] = await attempts();
      assert.equal(first!.outcome, 'accepted');
      const requests = service.deliveries(resultId).length;
      const before = await ctx.handle.db.selectFrom('task_results').select('updated_at').where('id', '=', resultId).executeTakeFirstOrThrow();
      await sleep(5);

      // As after a crash between the request and the job's deletion: the recorded attempt's consequence only.
      await ctx.services.taskDelivery.deliver(resultId, 1);
      assert.equal(service.deliveries(resultId).length, requests, 'the recorded attempt is not sent again');
      assert.deepEqual(await attempts(), [first]);
      const after = await ctx.handle.db.selectFrom('task_results').select('updated_at').where('id', '=', resultId).executeTakeFirstOrThrow();
      assert.ok(after.updated_at > before.updated_at, 'the callback deadline counts from the recorded acceptance again');

      await ctx.services.taskDelivery.deliver(resultId, 2);
      assert.equal(service.deliveries(resultId).length, requests + 1, 'an attempt not recorded yet goes out');
      assert.deepEqual((await attempts()).map((attempt) => [attempt.attempt, attempt.outcome]), [[1, 'accepted'], [2, 'accepted']]);
    });

    it('an overridden stage is passed by the override alone: settling it again before that leaves it running', async () => {
      const { resultId, stageId, callback, gated } = await openResult();
      assert.equal((await callback.patch(`/task-results/${resultId}/callback`, callbackBody('failed'))).status, 200);
      await waitForStageStatus(gated.api, stageId, 'awaiting_override');
      const { jobs, taskStageRunner: runner, stageOverrides } = ctx.services;
      await jobs.worker.stop(); // the override's completion job waits until the late settle has run
      try {
        const owner = { actsAsPerson: true, isUser: true, readsRuns: true, isOwner: true, manageRunTasks: true, managePolicyOverrides: true, overrider: 'user:test' };
        const overridden = await stageOverrides.override(stageId, owner, { userId: null, name: 'test', kind: 'user' }, null, () => {}, async () => new Map());
        assert.equal(overridden.decision.kind === 'approved' ? overridden.stage?.status : overridden.decision.kind, 'running');
        await runner.settle(stageId); // a settle job or a late finisher
        await ctx.handle.durable?.(); // writes made outside any request reach API reads once on disk (src/db/durable-snapshot-reads.ts)
        assert.equal((await gated.api.get(`/task-stages/${stageId}`)).body.data.attributes.status, 'running', 'not sent back to awaiting_override');
      } finally {
        jobs.worker.start();
      }
      await waitForStageStatus(gated.api, stageId, 'passed');
    });

    it('a final result is never sent again nor rewritten, whatever jobs run late', async () => {
      const { resultId, stageId, callback, gated } = await openResult();
      assert.equal((await callback.patch(`/task-results/${resultId}/callback`, callbackBody('failed'))).status, 200);
      await waitForStageStatus(gated.api, stageId, 'awaiting_override');
      const before = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      const stageBefore = (await gated.api.get(`/task-stages/${stageId}`)).body.data;
      const requestsBefore = service.deliveries(resultId).length;
      const attemptsBefore = await ctx.handle.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).execute();

      // Jobs that a crash or a slow node could run late: a delivery retry, both timeouts, and a direct finish.
      await ctx.services.taskDelivery.deliver(resultId, 2);
      await ctx.services.taskDelivery.deliver(resultId, 1);
      await ctx.services.taskDelivery.callbackTimeout(resultId);
      await ctx.services.taskDelivery.maxDuration(resultId);
      assert.equal((await ctx.services.taskStageRunner.finishResult(resultId, 'errored')).outcome, 'final');
      await ctx.services.taskStageRunner.completeOverride(stageId);
      await ctx.services.taskStageRunner.settle(stageId);
      // The last look before a request (a delivery that read the result while it was still pending).
      const { digest } = newAccessToken();
      const lateStart = { resultId, runId: 'run-x', tokenHash: digest, attempt: 3, url: 'http://127.0.0.1:9/' };
      assert.equal(await ctx.services.repositories.deliveries.startDelivery(lateStart), undefined, 'no attempt starts for a final result');
      assert.equal(await ctx.services.repositories.deliveries.findAccessToken(digest), undefined, 'and no token is stored');

      assert.equal(service.deliveries(resultId).length, requestsBefore, 'no request for a final result');
      const attemptsAfter = await ctx.handle.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).execute();
      assert.deepEqual(attemptsAfter, attemptsBefore);
      assert.deepEqual((await gated.api.get(`/task-results/${resultId}`)).body.data, before);
      assert.deepEqual((await gated.api.get(`/task-stages/${stageId}`)).body.data, stageBefore);
    });

    it('two results finishing at the same moment settle the stage once, with the right status', async () => {
      for (const [levels, statuses, expected] of [
        [['mandatory', 'advisory'], ['passed', 'failed'], 'passed'],
        [['mandatory', 'mandatory'], ['passed', 'failed'], 'awaiting_override'],
      ] as const) {
        const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: levels[0] });
        const second = await createRunTask(gated.api, gated.org.name, service.url, { 'hmac-key': HMAC_KEY });
        await attachRunTask(gated.api, gated.workspace.id, second.id, { 'enforcement-level': levels[1], stages: ['post_plan'] });
        const runId = await startRun(gated);
        await waitForRunStatus(gated.api, runId, 'post_plan_running');
        const [stage] = await stagesOf(gated.api, runId);
        const results = (await gated.api.get(`/task-stages/${stage.id}?include=task_results`)).body.included as any[];
        assert.equal(results.length, 2);
        await waitUntil(() => results.every((r) => service.tokens.has(r.id)), 15_000, 'the task service never received both requests');
        const level = (r: any) => r.attributes['workspace-task-enforcement-level'];
        const first = results.find((r) => level(r) === levels[0])!;
        const other = results.find((r) => r !== first && level(r) === levels[1])!;
        assert.ok(first && other && first !== other);
        const answers = await Promise.all([
          new ApiClient(ctx.app, service.tokens.get(first.id)![0]).patch(`/task-results/${first.id}/callback`, callbackBody(statuses[0])),
          new ApiClient(ctx.app, service.tokens.get(other.id)![0]).patch(`/task-results/${other.id}/callback`, callbackBody(statuses[1])),
        ]);
        assert.deepEqual(answers.map((a) => a.status), [200, 200]);
        const settled = await waitForStageStatus(gated.api, stage.id, expected);
        assert.ok(settled.data.attributes['status-timestamps'][`${expected.replace('_', '-')}-at`]);
        await waitForRunStatus(gated.api, runId, expected === 'passed' ? 'post_plan_completed' : 'post_plan_awaiting_decision');
      }
    });

    it('lists a run\'s stages in run order with pagination, shows them with both include spellings', async () => {
      const gated = await gatedWorkspace(ctx, service, 'pass', { enforcement: 'advisory', stages: ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');

      const all = await gated.api.get(`/runs/${runId}/task-stages`);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.data.map((s: any) => s.attributes.stage), ['pre_plan', 'post_plan', 'pre_apply', 'post_apply']);
      assert.deepEqual(all.body.data.map((s: any) => s.attributes.status), ['passed', 'passed', 'pending', 'pending']);
      assert.deepEqual(all.body.meta.pagination, {
        'current-page': 1, 'page-size': 20, 'prev-page': null, 'next-page': null, 'total-pages': 1, 'total-count': 4,
      });
      const page = await gated.api.get(`/runs/${runId}/task-stages?page%5Bnumber%5D=2&page%5Bsize%5D=3`);
      assert.deepEqual(page.body.data.map((s: any) => s.attributes.stage), ['post_apply']);
      assert.equal(page.body.meta.pagination['prev-page'], 1);
      assert.equal(page.body.links.first, `${ctx.config.baseUrl}/api/v2/runs/${runId}/task-stages?page%5Bnumber%5D=1&page%5Bsize%5D=3`);
      assertError(await gated.api.get(`/runs/${runId}/task-stages?page[size]=101`), 422, /page\[size\]/);
      assertError(await gated.api.get('/runs/run-doesnotexist12345/task-stages'), 404);

      const stage = all.body.data[1];
      assert.equal(stage.type, 'task-stages');
      assert.match(stage.id, /^ts-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.deepEqual(stage.relationships.run.data, { id: runId, type: 'runs' });
      assert.deepEqual(stage.relationships['policy-evaluations'], { data: [] });
      assert.equal(stage.links.self, `/api/v2/task-stages/${stage.id}`);
      assert.match(stage.attributes['created-at'], ISO_Z);
      assert.match(stage.attributes['updated-at'], ISO_Z);
      assert.deepEqual(stage.attributes.permissions, { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true });
      assert.deepEqual(stage.attributes.actions, { 'is-overridable': false });

      for (const spelling of ['task_results', 'task-results']) {
        const shown = await gated.api.get(`/task-stages/${stage.id}?include=${spelling}`);
        assert.equal(shown.status, 200, shown.text);
        assert.deepEqual(shown.body.included.map((r: any) => r.id), stage.relationships['task-results'].data.map((r: any) => r.id));
        const result = shown.body.included[0];
        assert.equal(result.type, 'task-results');
        assert.match(result.id, /^taskrs-/);
        assert.equal(result.attributes['task-id'], gated.taskId);
        assert.equal(result.attributes['workspace-task-id'], gated.workspaceTaskId);
        assert.match(result.attributes['task-name'], /^task/);
        assert.equal(result.attributes['task-url'], service.url);
        assert.equal(result.attributes.stage, 'post_plan');
        assert.equal(result.attributes['is-speculative'], false);
        assert.deepEqual(result.relationships['task-stage'].data, { id: stage.id, type: 'task-stages' });
        assert.equal(result.links.self, `/api/v2/task-results/${result.id}`);
        const alone = await gated.api.get(`/task-results/${result.id}`);
        assert.deepEqual(alone.body.data, result);
      }
      for (const spelling of ['policy_evaluations', 'policy-evaluations']) {
        const shown = await gated.api.get(`/task-stages/${stage.id}?include=${spelling}`);
        assert.equal(shown.status, 200);
        assert.equal(shown.body.included, undefined, 'there are no policy evaluations');
      }
      const withRun = await gated.api.get(`/task-stages/${stage.id}?include=run`);
      assert.deepEqual(withRun.body.included.map((r: any) => [r.type, r.id]), [['runs', runId]]);
      const withWorkspace = await gated.api.get(`/task-stages/${stage.id}?include=run.workspace`);
      assert.deepEqual(withWorkspace.body.included.map((r: any) => [r.type, r.id]), [['runs', runId], ['workspaces', gated.workspace.id]]);
      const everything = await gated.api.get(`/task-stages/${stage.id}?include=run,run.workspace,task_results,policy_evaluations`);
      assert.equal(everything.body.included.length, 3);
      assertError(await gated.api.get(`/task-stages/${stage.id}?include=workspace`), 400, /include parameter/);
      assertError(await gated.api.get('/task-stages/ts-doesnotexist12345'), 404);
      assertError(await gated.api.get('/task-results/taskrs-doesnotexist1'), 404);

      // The run's own include shows the same stage documents.
      const run = await gated.api.get(`/runs/${runId}?include=task_stages`);
      assert.deepEqual(run.body.included.filter((r: any) => r.type === 'task-stages'), all.body.data);
    });

    it('the owners team\'s token and the site admin may override; a team token acts as its team', async () => {
      const { resultId, stageId, callback, gated } = await openResult();
      assert.equal((await callback.patch(`/task-results/${resultId}/callback`, callbackBody('failed'))).status, 200);
      await waitForStageStatus(gated.api, stageId, 'awaiting_override');
      const { createTeam } = await import('../helpers/fixtures.js');
      const readers = await createTeam(ctx, gated.org, { 'organization-access': { 'read-workspaces': true } });
      const readersToken = await gated.api.post(`/teams/${readers.id}/authentication-token`, {});
      assert.equal(readersToken.status, 201, readersToken.text);
      const asReaders = new ApiClient(ctx.app, readersToken.body.data.attributes.token);
      assert.equal((await asReaders.get(`/task-stages/${stageId}`)).body.data.attributes.permissions['can-override'], false);
      assertError(await asReaders.post(`/task-stages/${stageId}/actions/override`), 403);

      const ownersToken = await gated.api.post(`/teams/${gated.org.ownersTeamId}/authentication-token`, {});
      assert.equal(ownersToken.status, 201, ownersToken.text);
      const asOwners = new ApiClient(ctx.app, ownersToken.body.data.attributes.token);
      const overridden = await asOwners.post(`/task-stages/${stageId}/actions/override`);
      assert.equal(overridden.status, 200, overridden.text);
      assert.equal(overridden.body.data.attributes.status, 'running');
      await waitForStageStatus(gated.api, stageId, 'passed');

      const second = await openResult();
      assert.equal((await second.callback.patch(`/task-results/${second.resultId}/callback`, callbackBody('failed'))).status, 200);
      await waitForStageStatus(second.gated.api, second.stageId, 'awaiting_override');
      const bySiteAdmin = await new ApiClient(ctx.app, ctx.siteToken).post(`/task-stages/${second.stageId}/actions/override`);
      assert.equal(bySiteAdmin.status, 200, bySiteAdmin.text);
      const recorded = await ctx.handle.db.selectFrom('task_stage_overrides').select(['task_stage_id', 'overridden_by']).where('task_stage_id', 'in', [stageId, second.stageId]).execute();
      assert.deepEqual(
        Object.fromEntries(recorded.map((r) => [r.task_stage_id, r.overridden_by])),
        { [stageId]: `team:${gated.org.ownersTeamId}`, [second.stageId]: 'site-admin' },
      );
    });

    it('a read-only member sees stages and results without override rights; outsiders get 404', async () => {
      const gated = await gatedWorkspace(ctx, service, 'pass', { enforcement: 'advisory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const [stage] = await stagesOf(gated.api, runId);
      const { addMember, addToTeam, createTeam } = await import('../helpers/fixtures.js');
      const team = await createTeam(ctx, gated.org, { 'organization-access': { 'read-workspaces': true } });
      const reader = await addMember(ctx, gated.org);
      await addToTeam(gated.org, team.id, reader.username);
      const listed = await reader.api.get(`/runs/${runId}/task-stages`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.data[0].attributes.permissions, { 'can-override-policy': false, 'can-override-tasks': false, 'can-override': false });
      assert.equal((await reader.api.get(`/task-results/${stage.relationships['task-results'].data[0].id}`)).status, 200);
      const outsider = await createUser(ctx);
      assertError(await outsider.api.get(`/task-stages/${stage.id}`), 404);
      assertError(await outsider.api.get(`/task-results/${stage.relationships['task-results'].data[0].id}/outcomes`), 404);
    });
  });
}
