/**
 * Issue 29: a node is SIGKILLed while it evaluates a run's policies (OPA running). The evaluation is a job row
 * in the database, so the next node to start takes it once its lease lapses, evaluates again and settles the
 * stage: the run goes on as if nothing happened.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { opaPath } from '../helpers/opa.js';
import { freePort } from '../helpers/postgres-server.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
/** Passes (an empty array), after a few seconds of CPU in OPA and little memory: long enough to be killed in. */
const SLOW_PASS = 'package slow\nimport rego.v1\ndeny := [1 | some i in numbers.range(1, 1500); some j in numbers.range(1, 1500); i * j < 0]\n';

for (const dialect of testDialects() as Dialect[]) {
  describe(`a policy evaluation survives SIGKILL of its node (${dialect})`, { timeout: 240_000 }, () => {
    const nodes: Array<ServerProcess | undefined> = [];
    let database: { url: string; drop: () => Promise<void> };
    before(async () => {
      database = await freshDatabaseUrl(dialect);
    });
    after(async () => {
      await Promise.all(nodes.map((node) => node?.kill('SIGKILL')));
      await database.drop();
    });

    it('the evaluation a killed node was running is finished by the next node', async () => {
      const siteToken = randomBytes(24).toString('hex');
      const envFor = (port: number) => ({
        DATABASE_URL: database.url,
        TEAMSTAGE_SITE_TOKEN: siteToken,
        TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
        TEAMSTAGE_RATE_LIMIT: '0',
        TEAMSTAGE_JOB_LEASE: '1',
        TEAMSTAGE_JOB_POLL: '0.2',
        TEAMSTAGE_OPA_PATH: opaPath(),
        TEAMSTAGE_POLICY_TIMEOUT: '60',
      });
      const portA = await freePort();
      nodes[0] = await startServerProcess(envFor(portA), { port: portA, readyTimeoutMs: 120_000 });
      const a = new HttpClient(nodes[0].url, 4);
      const { ownerToken, organization } = await bootstrapOrganization(a, siteToken, `pol${randomBytes(3).toString('hex')}`);
      const call = async (client: HttpClient, method: string, url: string, body?: unknown, expected = [200, 201, 202, 204]) => {
        const response = await client.request(method, url, ownerToken, body);
        assert.ok(expected.includes(response.status), `${method} ${url}: ${response.status} ${response.text}`);
        return response.body;
      };

      const workspace = await call(a, 'POST', `/organizations/${organization}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: 'gated', 'execution-mode': 'agent' } },
      });
      const policy = await call(a, 'POST', `/organizations/${organization}/policies`, {
        data: { type: 'policies', attributes: { name: 'slow', kind: 'opa', query: 'data.slow.deny', 'enforcement-level': 'mandatory' } },
      });
      await call(a, 'PUT', `/policies/${policy.data.id}/upload`, SLOW_PASS);
      await call(a, 'POST', `/organizations/${organization}/policy-sets`, {
        data: {
          type: 'policy-sets',
          attributes: { name: 'gate', kind: 'opa', overridable: true },
          relationships: { policies: { data: [{ id: policy.data.id, type: 'policies' }] }, workspaces: { data: [{ id: workspace.data.id, type: 'workspaces' }] } },
        },
      });
      const version = await call(a, 'POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
      });
      const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(upload.status, 200);
      const run = await call(a, 'POST', '/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } });
      const runId = run.data.id as string;
      const planId = run.data.relationships.plan.data.id as string;
      const status = async (client: HttpClient) => (await call(client, 'GET', `/runs/${runId}`)).data.attributes.status as string;
      for (let waited = 0; (await status(a)) !== 'plan_queued'; waited++) {
        assert.ok(waited < 300, 'the plan is queued');
        await sleep(100);
      }
      await call(a, 'POST', `/plans/${planId}/actions/claim`);
      await call(a, 'PUT', `/plans/${planId}/json-output`, fs.readFileSync(path.join(FIXTURES, '120_basic', 'plan.json'), 'utf8'));
      await call(a, 'POST', `/plans/${planId}/actions/report`, { status: 'finished' });

      // Node A is evaluating: kill it mid-way.
      const [stage] = (await call(a, 'GET', `/runs/${runId}/task-stages`)).data;
      const evaluationStatus = async (client: HttpClient) => (await call(client, 'GET', `/task-stages/${stage.id}/policy-evaluations`)).data[0].attributes.status as string;
      for (let waited = 0; (await evaluationStatus(a)) !== 'running'; waited++) {
        assert.ok(waited < 300, 'the evaluation starts on node A');
        await sleep(50);
      }
      await nodes[0].kill('SIGKILL');
      nodes[0] = undefined;
      await a.close().catch(() => {});

      const portB = await freePort();
      nodes[1] = await startServerProcess(envFor(portB), { port: portB, readyTimeoutMs: 120_000 });
      const b = new HttpClient(nodes[1].url, 4);
      assert.equal(await evaluationStatus(b), 'running', 'left running by the killed node');
      const deadline = Date.now() + 120_000;
      // The stage passed: the run rests after its post-plan stage (post_plan_completed, as HCP shows it).
      while (!['post_plan_completed', 'planned'].includes(await status(b))) {
        assert.ok(Date.now() < deadline, `run is ${await status(b)}, expected post_plan_completed`);
        await sleep(200);
      }
      assert.equal(await evaluationStatus(b), 'passed');
      assert.equal((await call(b, 'GET', `/task-stages/${stage.id}`)).data.attributes.status, 'passed');
      await b.close();
    });
  });
}
