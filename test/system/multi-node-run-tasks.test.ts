/**
 * Issue 4: three nodes on one PostgreSQL; 300 runs × 2 run tasks against a task service that answers
 * and calls back at once, while one node is SIGKILLed and restarted midway. Every result is delivered,
 * each final status is recorded exactly once and is correct, no stage is left open, and the service
 * sees no request for a result after it became final. TEAMSTAGE_MULTI_NODE_RUNS changes the run count.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { timestampKey } from '../../src/core/status-timestamps.js';
import { FINAL_RESULT_STATUSES } from '../../src/taskstages/stage-status.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { MockTaskService, type RecordedTaskRequest } from '../helpers/mock-task-service.js';
import { freePort } from '../helpers/postgres-server.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl } from '../helpers/test-app.js';

const RUNS = Number(process.env.TEAMSTAGE_MULTI_NODE_RUNS ?? 300);
const HMAC_KEY = `hmac-${randomBytes(16).toString('hex')}`;

/** Run i: the mandatory task fails every 5th run (stage awaits an override), the advisory one every 3rd. */
function expectedVerdicts(index: number) {
  const mandatory = index % 5 === 0 ? 'failed' : 'passed';
  const advisory = index % 3 === 0 ? 'failed' : 'passed';
  return { mandatory, advisory, stage: mandatory === 'failed' ? 'awaiting_override' : 'passed' };
}

describe(`${RUNS} runs × 2 run tasks on three nodes, one killed midway (postgres)`, { skip: !process.env.TEAMSTAGE_TEST_PG_URL, timeout: 900_000 }, () => {
  const nodes: Array<ServerProcess | undefined> = [];
  let service: MockTaskService | undefined;
  let drop: (() => Promise<void>) | undefined;
  after(async () => {
    await Promise.all(nodes.map((node) => node?.kill('SIGKILL')));
    await service?.close();
    await drop?.();
  });

  it('delivers every result, records each final status once and correctly, and sends nothing after final', async () => {
    const database = await freshDatabaseUrl('postgres');
    drop = database.drop;
    const siteToken = randomBytes(24).toString('hex');
    const ports = [await freePort(), await freePort(), await freePort()];
    const envFor = (port: number) => ({
      DATABASE_URL: database.url,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
      TEAMSTAGE_RATE_LIMIT: '0',
      TEAMSTAGE_JOB_LEASE: '2',
      TEAMSTAGE_JOB_POLL: '0.5',
      TEAMSTAGE_TASK_RETRY_DELAYS: '0.5,1,2',
      TEAMSTAGE_TASK_REQUEST_TIMEOUT: '5',
      TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '120',
    });
    for (const [index, port] of ports.entries()) nodes[index] = await startServerProcess(envFor(port), { port });
    const liveUrls = () => nodes.filter((node): node is ServerProcess => node !== undefined).map((node) => node.url);

    // The task service calls back at once, through any live node (as behind a load balancer), and
    // retries while the node it picked is down.
    const callbackAnswers: Array<{ resultId: string; http: number }> = [];
    const pending = new Set<Promise<void>>();
    const callBack = async (payload: any, status: string) => {
      const path = new URL(payload.task_result_callback_url).pathname;
      for (let attempt = 0; attempt < 100; attempt++) {
        const urls = liveUrls();
        const base = urls[Math.floor(Math.random() * urls.length)]!;
        try {
          const response = await fetch(`${base}${path}`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
            body: JSON.stringify({ data: { type: 'task-results', attributes: { status, message: `${status} (multi-node test)` } } }),
            signal: AbortSignal.timeout(10_000),
          });
          await response.arrayBuffer();
          if (response.status < 500) {
            callbackAnswers.push({ resultId: payload.task_result_id, http: response.status });
            return;
          }
        } catch {
          /* that node is down */
        }
        await sleep(100);
      }
    };
    service = await MockTaskService.start({
      hmacKey: HMAC_KEY,
      respond: (request: RecordedTaskRequest) => {
        const payload = request.json;
        if (!payload || payload.stage === 'test') return { status: 200 };
        const index = Number(String(payload.workspace_name).split('-')[1]);
        const verdicts = expectedVerdicts(index);
        const status = payload.task_result_enforcement_level === 'mandatory' ? verdicts.mandatory : verdicts.advisory;
        const job = callBack(payload, status);
        pending.add(job);
        void job.finally(() => pending.delete(job));
        return { status: 200 };
      },
    });

    const clients = ports.map((port) => new HttpClient(`http://127.0.0.1:${port}`, 8));
    const { ownerToken, organization } = await bootstrapOrganization(clients[0]!, siteToken, `multi${randomBytes(3).toString('hex')}`);
    const call = async (client: HttpClient, method: string, path: string, body?: unknown) => {
      const response = await client.request(method, path, ownerToken, body);
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    const tasks: any[] = [];
    for (const name of ['mandatory-check', 'advisory-check']) {
      tasks.push(await call(clients[0]!, 'POST', `/organizations/${organization}/tasks`, {
        data: { type: 'tasks', attributes: { name, url: service.url, category: 'task', 'hmac-key': HMAC_KEY } },
      }));
    }

    // Setup and run creation spread over the three nodes; the kill lands while results are in flight.
    const runs: Array<{ runId: string; index: number }> = [];
    const killAt = Math.floor(RUNS / 3);
    let killed = false;
    const prepare = async (index: number) => {
      const client = clients[index % 3]!;
      const workspace = await call(client, 'POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: `ws-${index}` } } });
      const version = await call(client, 'POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
      });
      const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(upload.status, 200);
      for (const [taskIndex, level] of ['mandatory', 'advisory'].entries()) {
        await call(client, 'POST', `/workspaces/${workspace.data.id}/tasks`, {
          data: { type: 'workspace-tasks', attributes: { 'enforcement-level': level, stages: ['post_plan'] }, relationships: { task: { data: { type: 'tasks', id: tasks[taskIndex].data.id } } } },
        });
      }
      const run = await call(client, 'POST', '/runs', {
        data: { type: 'runs', attributes: { message: `run ${index}` }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } },
      });
      runs.push({ runId: run.data.id, index });
    };
    const started = Date.now();
    for (let batch = 0; batch < RUNS; batch += 10) {
      await Promise.all(Array.from({ length: Math.min(10, RUNS - batch) }, (_, i) => prepare(batch + i)));
      if (!killed && batch + 10 >= killAt) {
        killed = true;
        await nodes[1]!.kill('SIGKILL');
        nodes[1] = undefined;
        // Setup requests that would have gone to the dead node go to the first one (a balancer would).
        clients[1] = clients[0]!;
        setTimeout(() => {
          void startServerProcess(envFor(ports[1]!), { port: ports[1]! }).then((node) => (nodes[1] = node));
        }, 1000);
      }
    }
    const expectedRuns = runs;

    // Wait until no stage is open.
    const deadline = Date.now() + 300_000;
    const stages = new Map<string, any>();
    for (const { runId } of expectedRuns) {
      for (;;) {
        const listed = await call(clients[0]!, 'GET', `/runs/${runId}/task-stages`);
        const stage = listed.data[0];
        if (stage && !['pending', 'running'].includes(stage.attributes.status)) {
          stages.set(runId, stage);
          break;
        }
        assert.ok(Date.now() < deadline, `run ${runId}: stage still ${stage?.attributes.status}`);
        await sleep(200);
      }
    }
    const settledMs = Date.now() - started;
    await Promise.allSettled([...pending]);
    await sleep(1500);

    // Correct and recorded once.
    let results = 0;
    const finalAt = new Map<string, number>();
    for (const { runId, index } of expectedRuns) {
      const stage = stages.get(runId);
      const verdicts = expectedVerdicts(index);
      assert.equal(stage.attributes.status, verdicts.stage, `run ${index}: stage`);
      const stageResults = await call(clients[0]!, 'GET', `/task-stages/${stage.id}?include=task_results`);
      assert.equal(stageResults.included.length, 2);
      for (const result of stageResults.included) {
        results += 1;
        const level = result.attributes['workspace-task-enforcement-level'];
        assert.equal(result.attributes.status, level === 'mandatory' ? verdicts.mandatory : verdicts.advisory, `run ${index} ${level}`);
        const timestamps = result.attributes['status-timestamps'];
        const finals = FINAL_RESULT_STATUSES.filter((status) => timestamps[timestampKey(status)] !== undefined);
        assert.deepEqual(finals, [result.attributes.status], `${result.id}: exactly one final status`);
        finalAt.set(result.id, Date.parse(timestamps[timestampKey(result.attributes.status)]));
      }
    }
    assert.equal(results, RUNS * 2);

    // Every result was delivered, and nothing was sent after a result was final.
    const delivered = new Set<string>();
    let afterFinal = 0;
    for (const request of service.requests) {
      if (!request.json || request.json.stage === 'test') continue;
      assert.equal(request.signatureValid, true);
      delivered.add(request.json.task_result_id);
      const final = finalAt.get(request.json.task_result_id);
      if (final !== undefined && request.receivedAt > final) afterFinal += 1;
    }
    for (const id of finalAt.keys()) assert.ok(delivered.has(id), `${id} delivered`);
    assert.equal(afterFinal, 0, 'no request after final');
    const verdictAnswers = callbackAnswers.filter((answer) => answer.http === 200);
    assert.equal(new Set(verdictAnswers.map((a) => a.resultId)).size, verdictAnswers.length, 'one accepted verdict per result');
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    console.log(
      `${RUNS} runs × 2 tasks on 3 nodes (one SIGKILLed after ~${killAt} runs and restarted): ${results} results final and correct, ` +
        `${service.requests.length} deliveries received, 0 after final; all stages settled ${Math.round(settledMs / 1000)} s after the first run`,
    );
  });
});
