/**
 * Issue 27: the pipeline commands wait event-driven. While a person decides, `teamstage pipeline wait` holds
 * one request open at a time (no polling), learns of the override within 200 ms, and while its run is
 * pending it shows the run's place in the workspace's queue.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`teamstage pipeline waits event-driven (${dialect})`, { timeout: 90_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    const realRequest = http.request;

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      http.request = realRequest;
      await service.close();
      await ctx.close();
    });

    /** The CLI in-process, with every request it makes counted (and how many were open at once). */
    function cli(token: string, args: string[]) {
      const lines: string[] = [];
      const printedAt: number[] = [];
      const print = (line: string) => {
        lines.push(line);
        printedAt.push(performance.now());
      };
      const out: Output = { info: print, result: print };
      const traffic = { requests: 0, open: 0, mostOpen: 0 };
      // The client speaks node:http (src/pipeline/http-transport.ts): every request it opens is counted until closed.
      http.request = ((...requestArgs: Parameters<typeof http.request>) => {
        traffic.requests++;
        traffic.mostOpen = Math.max(traffic.mostOpen, ++traffic.open);
        const request = realRequest(...requestArgs);
        request.once('close', () => traffic.open--);
        return request;
      }) as typeof http.request;
      const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: token, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
      const done = runPipeline([...args, '--timeout', '60'], env, out).then((code) => ({ code, at: performance.now() }));
      return { lines, printedAt, traffic, done: done.finally(() => (http.request = realRequest)) };
    }

    it('a person overrides while the job waits: one request open at a time, a handful in 2 s, and the job goes on within 200 ms', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      const runId = await startRun(gated);
      const stage = (await stagesOf(gated.api, runId))[0];
      await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
      const waiting = cli(gated.org.owner.token, ['wait', '--run', runId, '--override-wait', '30']);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const idleRequests = waiting.traffic.requests;
      // The stage report reads the stage and its outcomes once; the run is read once, then one waiting read.
      assert.ok(idleRequests >= 2 && idleRequests <= 6, `${idleRequests} requests while nothing changed for 2 s`);
      const overridden = await gated.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'intended' });
      assert.equal(overridden.status, 200, overridden.text);
      const overriddenAt = performance.now();
      const printedBefore = waiting.lines.length;
      const { code } = await waiting.done;
      assert.equal(code, 0, waiting.lines.join('\n'));
      // The first line printed after the override (the stage's new verdict, read once the waiting read
      // answered) says the job learned of it (measured 40-70 ms on an idle machine).
      const learnedAt = waiting.printedAt[printedBefore];
      assert.ok(learnedAt !== undefined, waiting.lines.join('\n'));
      assert.match(waiting.lines[printedBefore]!, /post_plan stage: passed|^run run-\w+: post_plan_/);
      assert.ok(learnedAt - overriddenAt < 200, `the job learned of the override ${Math.round(learnedAt - overriddenAt)} ms after it`);
      assert.equal(waiting.traffic.mostOpen, 1, 'never more than one request open');
    });

    it("a pending run: the job shows its place in the workspace's queue and goes on when its turn comes", async () => {
      const gated = await gatedWorkspace(ctx, service, 'pass');
      const api = gated.api;
      const workspace = await createRunnableWorkspace(ctx, api, gated.org.name, { 'execution-mode': 'agent' });
      const first = await createRun(api, workspace.id, {});
      await waitForRunStatus(api, first.data.id, 'plan_queued');
      const second = await createRun(api, workspace.id, {});
      const waiting = cli(gated.org.owner.token, ['wait', '--run', second.data.id]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.match(waiting.lines.join('\n'), /waiting for its turn, 1 run ahead in the workspace's queue/);
      assert.equal((await api.post(`/runs/${first.data.id}/actions/cancel`, {})).status, 202);
      const { code } = await waiting.done;
      assert.equal(code, 0, waiting.lines.join('\n'));
      assert.match(waiting.lines.join('\n'), /the plan may start/);
    });
  });
}
