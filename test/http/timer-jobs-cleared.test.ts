/**
 * Issue 40: a result's deadline jobs (callback timeout, max duration) are deleted when it becomes final, so
 * the `scheduled` jobs gauge does not grow with every run until they fire hours later.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

const TIMERS = ['task-result.callback-timeout', 'task-result.max-duration'];

for (const dialect of testDialects()) {
  describe(`deadline jobs end with their result (${dialect})`, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect);
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.mock.close();
      await ctx.close();
    });

    const timerJobs = async () => (await ctx.handle.db.selectFrom('jobs').select(['kind', 'dedupe_key']).where('kind', 'in', TIMERS).execute()).length;

    it('a passed result leaves no callback-timeout or max-duration job, nor does a metric count one', async () => {
      const gated = await gatedWorkspace(ctx, service.mock, 'progress');
      const runId = await startRun(gated);
      const [stage] = await stagesOf(gated.org.owner.api, runId);
      await waitForStageStatus(gated.org.owner.api, stage.id, 'passed', 20_000);
      assert.equal(await timerJobs(), 0);
      const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
      assert.doesNotMatch(metrics.body, /teamstage_jobs\{kind="task-result\.(callback-timeout|max-duration)",state="scheduled"\} [1-9]/);
    });
  });
}
