/**
 * Issue 27's acceptance for the run queue, with real processes: two pipelines (`teamstage pipeline`, the
 * bundled CLI) start on one agent-mode workspace at once. The second one's run waits `pending` (its
 * `plan-start` keeps waiting) while the first plans, waits for its confirmation and applies; only then does
 * the second run take its turn and the second pipeline claim its plan. On PostgreSQL the two pipelines talk
 * to two different nodes of one database, so the turn is decided across nodes; on SQLite, one node.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { build } from 'esbuild';
import { bundleOptions } from '../../scripts/bundle-options.mjs';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { freePort } from '../helpers/postgres-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PLAN = path.join(ROOT, 'test/fixtures/terraform-plans/action_reason/plan.json');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

for (const dialect of testDialects()) {
  describe(`two pipelines on one workspace take turns (${dialect})`, { timeout: 600_000 }, () => {
    // Inside the checkout: the bundle finds its packages (node_modules) from there, as pipeline-cli.test.ts's does.
    fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    const workDir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'run-queue-'));
    const nodes: ServerProcess[] = [];
    const children = new Set<ChildProcess>();
    let drop: (() => Promise<void>) | undefined;
    let http: HttpClient | undefined;
    after(async () => {
      for (const child of children) child.kill('SIGKILL');
      await http?.close();
      await Promise.all(nodes.map((node) => node.kill('SIGTERM')));
      await drop?.();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('the second run waits pending behind the first (planned, confirmed, applied), then plans', async () => {
      const bundle = path.join(workDir, 'teamstage.mjs');
      await build(bundleOptions(path.join(ROOT, 'src/cli.ts'), bundle));
      const database = await freshDatabaseUrl(dialect === 'sqlite' ? 'sqlite' : 'postgres');
      drop = database.drop;
      const siteToken = randomBytes(24).toString('hex');
      const env = (port: number) => ({
        DATABASE_URL: database.url,
        TEAMSTAGE_DATA_DIR: path.join(workDir, `data-${port}`),
        TEAMSTAGE_SITE_TOKEN: siteToken,
        TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
        TEAMSTAGE_RATE_LIMIT: '0',
        TEAMSTAGE_JOB_POLL: '0.2',
      });
      for (let index = 0; index < (dialect === 'postgres' ? 2 : 1); index++) {
        const port = await freePort();
        nodes.push(await startServerProcess(env(port), { port, readyTimeoutMs: 120_000 }));
      }
      const nodeFor = (pipeline: number) => nodes[pipeline % nodes.length]!;
      http = new HttpClient(nodes[0]!.url, 2);
      const { ownerToken, organization } = await bootstrapOrganization(http, siteToken, `queue${randomBytes(3).toString('hex')}`);
      const created = await http.request('POST', `/organizations/${organization}/workspaces`, ownerToken, {
        data: { type: 'workspaces', attributes: { name: 'network', 'execution-mode': 'agent' } },
      });
      assert.equal(created.status, 201, created.text);
      const configDir = path.join(workDir, 'config');
      fs.mkdirSync(configDir);
      fs.writeFileSync(path.join(configDir, 'main.tf'), 'resource "null_resource" "a" {}\n');
      fs.writeFileSync(path.join(workDir, 'apply.log'), 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n');

      /** One `teamstage pipeline …` process of pipeline `pipeline`, against its node. */
      const cli = (pipeline: number, args: string[]): Promise<CliResult> => {
        const childEnv: NodeJS.ProcessEnv = { ...process.env };
        for (const key of Object.keys(childEnv)) if (key.startsWith('TEAMSTAGE_')) delete childEnv[key];
        Object.assign(childEnv, { TEAMSTAGE_ADDRESS: nodeFor(pipeline).url, TEAMSTAGE_TOKEN: ownerToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' });
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [bundle, 'pipeline', ...args, '--poll-interval', '0.1', '--timeout', '120'], {
            cwd: workDir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'],
          });
          children.add(child);
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk) => (stdout += chunk));
          child.stderr.on('data', (chunk) => (stderr += chunk));
          child.on('error', reject);
          child.on('close', (code) => {
            children.delete(child);
            resolve({ code, stdout: stdout.trim(), stderr });
          });
        });
      };
      const run = async (runId: string) => (await http!.request('GET', `/runs/${runId}`, ownerToken)).body.data;
      const runsOfWorkspace = async () => (await http!.request('GET', `/workspaces/${created.body.data.id}/runs`, ownerToken)).body.data as any[];

      // Both pipelines start at once.
      const start = (pipeline: number) => cli(pipeline, ['plan-start', '--organization', organization, '--workspace', 'network', '--config-dir', configDir, '--message', `pipeline ${pipeline}`]);
      const starts = [start(0), start(1)];
      // One claims its plan; the other's run waits pending behind it, and its plan-start keeps waiting.
      const first = await Promise.race(starts.map(async (started, index) => ({ index, result: await started })));
      assert.equal(first.result.code, 0, first.result.stderr);
      const firstRun = first.result.stdout;
      const second = { index: 1 - first.index, result: starts[1 - first.index]! };
      let secondRunId = '';
      await waitUntil(async () => {
        const waiting = (await runsOfWorkspace()).find((candidate) => candidate.id !== firstRun);
        secondRunId = waiting?.id ?? '';
        return waiting !== undefined;
      }, 20_000, 'the second pipeline created no run');
      assert.equal((await run(firstRun)).attributes.status, 'planning');

      const planned = await cli(first.index, ['plan-finish', '--run', firstRun, '--plan-json', PLAN]);
      assert.equal(planned.code, 0, planned.stderr);
      assert.equal(planned.stdout, 'planned');
      // The first run awaits confirmation: it still holds the workspace.
      const waiting = await run(secondRunId);
      assert.equal(waiting.attributes.status, 'pending');
      assert.equal(waiting.attributes['position-in-queue'], 1);
      assert.equal(children.size, 1, 'the second plan-start is still waiting');

      assert.equal((await cli(first.index, ['apply-start', '--run', firstRun])).code, 0);
      const applied = await cli(first.index, ['apply-finish', '--run', firstRun, '--log', 'apply.log']);
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(applied.stdout, 'applied');

      // Now the second run takes its turn: its pipeline claims the plan.
      const secondStarted = await second.result;
      assert.equal(secondStarted.code, 0, secondStarted.stderr);
      assert.equal(secondStarted.stdout, secondRunId);
      const secondRun = await run(secondRunId);
      assert.equal(secondRun.attributes.status, 'planning');
      const appliedAt = Date.parse((await run(firstRun)).attributes['status-timestamps']['applied-at']);
      assert.ok(Date.parse(secondRun.attributes['status-timestamps']['plan-queued-at']) >= appliedAt, 'the second run started after the first was applied');
    });
  });
}
