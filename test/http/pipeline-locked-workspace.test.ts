/**
 * Issue 37: with its workspace locked (HCP's lock, a gate's freeze switch) no run starts, and the pipeline client says
 * so: which workspace, locked by whom, and that the run starts once it is unlocked; after the unlock it goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

for (const dialect of testDialects()) {
  describe(`the pipeline client on a locked workspace (${dialect})`, { timeout: 90_000 }, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await startListeningApp(dialect, SIMULATED_PLAN_CHANGES);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    it('says the workspace is locked and by whom while its run waits, and goes on once it is unlocked', async () => {
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const locked = await api.post(`/workspaces/${workspace.id}/actions/lock`, { reason: 'release freeze' });
      assert.equal(locked.status, 200, locked.text);
      const holder = locked.body.data.relationships['locked-by'].data;
      const run = await createRun(api, workspace.id, {});
      assert.equal(run.data.attributes.status, 'pending');

      const lines: string[] = [];
      const print = (line: string) => void lines.push(line);
      const out: Output = { info: print, result: print };
      const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: org.owner.token, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
      const done = runPipeline(['wait', '--run', run.data.id, '--timeout', '60'], env, out);
      const said = new RegExp(`no run starts while workspace ${workspace.name} is locked by user ${holder.id}; it starts once the workspace is unlocked`);
      await waitUntil(() => said.test(lines.join('\n')), 20_000, `the lock was not named: ${lines.join(' | ')}`);
      assert.equal((await api.get(`/runs/${run.data.id}`)).body.data.attributes.status, 'pending', 'no run started');

      assert.equal((await api.post(`/workspaces/${workspace.id}/actions/unlock`)).status, 200);
      assert.equal(await done, 0, lines.join('\n'));
      assert.match(lines.join('\n'), /the plan may start/);
    });
  });
}
