/**
 * What settling a stage reads (issue 39, the run task fan-out): a callback that leaves another member of its
 * stage open cannot settle it, so it reads no other kind of member (the stage's policy evaluations); the
 * callback that closes the last member does, and the stage settles as before. Counted from every statement the
 * server runs (Kysely's query log), with the job worker stopped so that only the callbacks' statements count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { waitForRunStatus, attachRunTask, createRunTask } from '../helpers/run-fixtures.js';
import { HMAC_KEY, ScriptedTaskService, gatedWorkspace, stagesOf, startListeningApp, startRun, type GatedWorkspace } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

for (const dialect of testDialects()) {
  describe(`settling a stage reads what can decide it (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    let recording: string[] | undefined;
    let gated: GatedWorkspace;

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600' }, { onQuery: (sql) => recording?.push(sql) });
      service = await ScriptedTaskService.start();
      gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      const second = await createRunTask(gated.api, gated.org.name, service.url, { 'hmac-key': HMAC_KEY });
      await attachRunTask(gated.api, gated.workspace.id, second.id, { 'enforcement-level': 'advisory', stages: ['post_plan'] });
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    async function statementsOf(request: () => Promise<{ status: number; text: string }>): Promise<string[]> {
      const statements: string[] = [];
      recording = statements;
      const answer = await request();
      recording = undefined;
      assert.equal(answer.status, 200, answer.text);
      return statements;
    }

    it('the first of two callbacks reads no policy evaluation; the last settles the stage', async () => {
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_running');
      const [stage] = await stagesOf(gated.api, runId);
      const resultIds = (stage.relationships['task-results'].data as Array<{ id: string }>).map((result) => result.id);
      assert.equal(resultIds.length, 2);
      await waitUntil(() => resultIds.every((id) => service.tokens.has(id)), 15_000, 'the task service never received both requests');
      // Only the callbacks' statements: the job worker (which runs its own meanwhile) is stopped.
      await ctx.services.jobs.stop();
      const body = { data: { type: 'task-results', attributes: { status: 'passed', message: 'ok' } } };
      const callback = (resultId: string) => new ApiClient(ctx.app, service.tokens.get(resultId)![0]!).patch(`/task-results/${resultId}/callback`, body);

      const first = await statementsOf(() => callback(resultIds[0]!));
      assert.ok(first.some((sql) => /update "task_results"/.test(sql)), `the first callback wrote nothing:\n${first.join('\n')}`);
      assert.ok(!first.some((sql) => /policy_evaluations/.test(sql)), `the first callback read the policy evaluations:\n${first.join('\n')}`);

      const last = await statementsOf(() => callback(resultIds[1]!));
      assert.ok(last.some((sql) => /policy_evaluations/.test(sql)), `the last callback settled without its policy evaluations:\n${last.join('\n')}`);
      const [settled] = await stagesOf(gated.api, runId);
      assert.equal(settled.attributes.status, 'passed');
    });
  });
}
