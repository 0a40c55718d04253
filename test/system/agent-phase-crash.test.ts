/**
 * Issue 16: a node is SIGKILLed while a pipeline holds claimed phases (agent execution mode). Two nodes
 * share one database; both runs are claimed through node A, which is then killed:
 *  - run 1: the pipeline goes on through node B (log, report): the run is planned, the claim's timeout
 *    job (written with the claim) does nothing when it comes due, and the apply runs through B to the end;
 *  - run 2: nobody reports: the timeout, a job row node A wrote, is taken by node B and errors the run.
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
import { freePort } from '../helpers/postgres-server.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
/** Long enough for run 1's report to land through node B first on a loaded machine; short enough to wait for. */
const PHASE_TIMEOUT_SECONDS = 8;

for (const dialect of testDialects() as Dialect[]) {
  describe(`agent phases survive SIGKILL of the node that claimed them (${dialect})`, { timeout: 180_000 }, () => {
    const nodes: Array<ServerProcess | undefined> = [];
    let database: { url: string; drop: () => Promise<void> };
    before(async () => {
      database = await freshDatabaseUrl(dialect);
    });
    after(async () => {
      await Promise.all(nodes.map((node) => node?.kill('SIGKILL')));
      await database.drop();
    });

    it('a report lands on the other node; an unreported claim times out there', async () => {
      const siteToken = randomBytes(24).toString('hex');
      const ports = [await freePort(), await freePort()];
      const envFor = (port: number) => ({
        DATABASE_URL: database.url,
        TEAMSTAGE_SITE_TOKEN: siteToken,
        TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
        TEAMSTAGE_RATE_LIMIT: '0',
        TEAMSTAGE_JOB_LEASE: '1',
        TEAMSTAGE_JOB_POLL: '0.2',
        TEAMSTAGE_AGENT_PHASE_TIMEOUT: String(PHASE_TIMEOUT_SECONDS),
      });
      // One after the other: both migrate the same database.
      // A loaded machine (tsx compiles the sources at start) may take a while to bring a node up.
      for (const [index, port] of ports.entries()) nodes[index] = await startServerProcess(envFor(port), { port, readyTimeoutMs: 120_000 });
      const a = new HttpClient(nodes[0]!.url, 4);
      const b = new HttpClient(nodes[1]!.url, 4);
      const { ownerToken, organization } = await bootstrapOrganization(a, siteToken, `agent${randomBytes(3).toString('hex')}`);
      const call = async (client: HttpClient, method: string, url: string, body?: unknown, expected = [200, 201, 202]) => {
        const response = await client.request(method, url, ownerToken, body);
        assert.ok(expected.includes(response.status), `${method} ${url}: ${response.status} ${response.text}`);
        return response.body;
      };
      const runStatus = async (client: HttpClient, runId: string) => (await call(client, 'GET', `/runs/${runId}`)).data.attributes.status as string;
      const waitFor = async (client: HttpClient, runId: string, status: string, timeoutMs = 30_000) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const now = await runStatus(client, runId);
          if (now === status) return;
          assert.ok(Date.now() < deadline, `run ${runId} is ${now}, expected ${status}`);
          await sleep(100);
        }
      };

      // A workspace per run: a workspace runs one run at a time (its queue), and both plans are claimed at once.
      const runs = [];
      for (let index = 0; index < 2; index++) {
        const workspace = await call(a, 'POST', `/organizations/${organization}/workspaces`, {
          data: { type: 'workspaces', attributes: { name: `pipeline-${index}`, 'execution-mode': 'agent' } },
        });
        const version = await call(a, 'POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
          data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
        });
        const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
        assert.equal(upload.status, 200);
        const run = await call(a, 'POST', '/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } });
        runs.push({ runId: run.data.id as string, planId: run.data.relationships.plan.data.id as string, applyId: run.data.relationships.apply.data.id as string });
      }
      const [reported, abandoned] = runs as [(typeof runs)[0], (typeof runs)[0]];
      for (const run of runs) await waitFor(a, run.runId, 'plan_queued');

      const plan = fs.readFileSync(path.join(FIXTURES, 'action_reason', 'plan.json'), 'utf8');
      await call(a, 'POST', `/plans/${reported.planId}/actions/claim`);
      await call(a, 'POST', `/plans/${abandoned.planId}/actions/claim`);
      const claimedAt = Date.now();
      await call(a, 'PUT', `/plans/${reported.planId}/json-output`, plan);
      await nodes[0]!.kill('SIGKILL');
      nodes[0] = undefined;
      await a.close().catch(() => {});

      // The claim is held in the database, not by node A: node B refuses a second claim and takes the report.
      const second = await b.request('POST', `/plans/${reported.planId}/actions/claim`, ownerToken);
      assert.equal(second.status, 409, second.text);
      await call(b, 'PUT', `/plans/${reported.planId}/log`, 'Plan: 1 to add, 0 to change, 1 to destroy.\n');
      await call(b, 'POST', `/plans/${reported.planId}/actions/report`, { status: 'finished' });
      await waitFor(b, reported.runId, 'planned');
      const shown = await call(b, 'GET', `/plans/${reported.planId}`);
      assert.deepEqual([shown.data.attributes['resource-additions'], shown.data.attributes['resource-destructions']], [1, 1]);
      const served = await b.request('GET', `/plans/${reported.planId}/json-output`, ownerToken);
      assert.equal(served.text, plan, 'the plan JSON uploaded through node A, served by node B byte for byte');

      // The unreported claim times out on node B (the job node A wrote with the claim).
      await waitFor(b, abandoned.runId, 'errored', PHASE_TIMEOUT_SECONDS * 1000 + 30_000);
      assert.ok(Date.now() - claimedAt >= PHASE_TIMEOUT_SECONDS * 1000 - 500, 'not before the timeout');
      assert.equal((await call(b, 'GET', `/plans/${abandoned.planId}`)).data.attributes.status, 'errored');
      const late = await b.request('POST', `/plans/${abandoned.planId}/actions/report`, ownerToken, { status: 'finished' });
      assert.equal(late.status, 409, late.text);

      // Run 1's timeout came due meanwhile and did nothing: it was reported. It applies through node B.
      assert.equal(await runStatus(b, reported.runId), 'planned');
      await call(b, 'POST', `/runs/${reported.runId}/actions/apply`, { comment: 'after the crash' });
      await waitFor(b, reported.runId, 'apply_queued');
      await call(b, 'POST', `/applies/${reported.applyId}/actions/claim`);
      await call(b, 'POST', `/applies/${reported.applyId}/actions/report`, { status: 'finished' });
      await waitFor(b, reported.runId, 'applied');
      await b.close();
    });
  });
}
