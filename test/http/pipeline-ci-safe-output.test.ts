/**
 * Issue 25 item 7, through the commands: a run task whose message and outcomes carry GitHub workflow
 * commands, Azure logging commands and ANSI escapes is printed by `teamstage pipeline` inert and readable
 * (the rules themselves: test/unit/ci-safe-text.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`teamstage pipeline prints a hostile task's words inert (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it('no printed line is a runner command or holds an escape; the words are still there', async () => {
      const gated = await gatedWorkspace(ctx, service, 'hostile');
      const runId = await startRun(gated);
      // A remote-mode run passes through statuses the pipeline would act on (planning): wait for the verdict first.
      await waitForStageStatus(gated.api, (await stagesOf(gated.api, runId))[0].id, 'awaiting_override', 20_000);
      const lines: string[] = [];
      const out: Output = { info: (line) => lines.push(line), result: (line) => lines.push(line) };
      const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: gated.org.owner.token, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
      const code = await runPipeline(['wait', '--run', runId, '--poll-interval', '0.05', '--timeout', '30'], env, out);
      assert.equal(code, 3, lines.join('\n'));
      const printed = lines.join('\n');
      assert.match(printed, /post_plan stage: awaiting_override/);
      for (const line of printed.split('\n')) {
        assert.doesNotMatch(line, /^\s*::/, `a GitHub workflow command: ${JSON.stringify(line)}`);
        assert.doesNotMatch(line, /##\w*\[/, `a logging command: ${JSON.stringify(line)}`);
        assert.doesNotMatch(line, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, `a control character: ${JSON.stringify(line)}`);
      }
      // Readable: the task's words, minus the escapes.
      assert.match(printed, /^ {4}denied$/m);
      assert.match(printed, /: :add-mask::hunter2/);
      assert.match(printed, /: :stop-commands::pwned/);
      assert.match(printed, /##vso \[task\.setvariable variable=x\]1/);
      assert.match(printed, /- EVIL-1: bad\n\s*: :error file=main\.tf::injectedclick \[Severity: high\]/);
    });
  });
}
