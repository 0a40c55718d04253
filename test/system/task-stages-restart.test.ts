/**
 * Issue 3: durable delivery. A real server process is SIGKILLed while run task results are in flight
 * (requests answered, callbacks pending, retries scheduled, timeouts armed), then restarted on the
 * same database and port. Every stage must reach its correct final status, no request may reach the
 * task service for a result that was already final, no final status may be written twice, and no
 * access token or HMAC key may appear in the logs.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Dialect } from '../../src/db/database.js';
import { timestampKey } from '../../src/core/status-timestamps.js';
import { FINAL_RESULT_STATUSES } from '../../src/taskstages/stage-status.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { MockTaskService, type RecordedTaskRequest } from '../helpers/mock-task-service.js';
import { freePort } from '../helpers/postgres-server.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, SIMULATED_PLAN_CHANGES, testDialects } from '../helpers/test-app.js';

const HMAC_KEY = `hmac-${randomBytes(16).toString('hex')}`;

/** Behaviour by the workspace name's first word, and what each stage must end as. */
const SCENARIOS = [
  { behavior: 'pass', enforcement: 'mandatory', stage: 'passed', run: 'post_plan_completed' },
  { behavior: 'fail', enforcement: 'mandatory', stage: 'awaiting_override', run: 'post_plan_awaiting_decision' },
  { behavior: 'fail', enforcement: 'advisory', stage: 'passed', run: 'post_plan_completed' },
  { behavior: 'progress', enforcement: 'mandatory', stage: 'passed', run: 'post_plan_completed' },
  { behavior: 'error500', enforcement: 'mandatory', stage: 'errored', run: 'errored' },
  { behavior: 'silent', enforcement: 'mandatory', stage: 'errored', run: 'errored' },
] as const;
const COPIES = 2;

/**
 * The task service: answers 200 (or 500), and calls back only once the test has killed the server
 * (release()). Callbacks are retried while the server is down, as a real service would.
 */
class CrashTaskService {
  readonly callbackAnswers: Array<{ resultId: string; status: string; http: number }> = [];
  private closed = false;
  private readonly work = new Set<Promise<void>>();
  /** Verdicts wait for this, so the kill lands before any of them however slow the machine is. */
  private releaseVerdicts!: () => void;
  private readonly verdictsReleased = new Promise<void>((resolve) => (this.releaseVerdicts = resolve));
  private constructor(readonly mock: MockTaskService) {}

  static async start(): Promise<CrashTaskService> {
    let service!: CrashTaskService;
    const mock = await MockTaskService.start({ hmacKey: HMAC_KEY, respond: (request) => service.respond(request) });
    service = new CrashTaskService(mock);
    return service;
  }

  deliveries(): RecordedTaskRequest[] {
    return this.mock.requests.filter((request) => request.json && request.json.stage !== 'test');
  }

  /** From now on the service calls back (first while the server is down, retrying until it is up). */
  release(): void {
    this.releaseVerdicts();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.releaseVerdicts();
    await Promise.allSettled([...this.work]);
    await this.mock.close();
  }

  private respond(request: RecordedTaskRequest) {
    const payload = request.json;
    if (!payload || payload.stage === 'test') return { status: 200 };
    const behavior = String(payload.workspace_name).split('-')[0] ?? '';
    if (behavior === 'error500') return { status: 500 };
    if (behavior !== 'silent') {
      const job = this.verdict(behavior, payload);
      this.work.add(job);
      void job.finally(() => this.work.delete(job));
    }
    return { status: 200 };
  }

  private async verdict(behavior: string, payload: any): Promise<void> {
    await this.verdictsReleased;
    await sleep(300);
    if (behavior === 'progress') {
      await this.callBack(payload, 'running');
      await sleep(600);
    }
    await this.callBack(payload, behavior === 'fail' ? 'failed' : 'passed');
  }

  private async callBack(payload: any, status: string): Promise<void> {
    const body = JSON.stringify({ data: { type: 'task-results', attributes: { status, message: `${status} by the crash test` } } });
    for (let attempt = 0; attempt < 200 && !this.closed; attempt++) {
      try {
        const response = await fetch(payload.task_result_callback_url, {
          method: 'PATCH',
          headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
          body,
          signal: AbortSignal.timeout(5000),
        });
        await response.arrayBuffer();
        if (response.status < 500) {
          this.callbackAnswers.push({ resultId: payload.task_result_id, status, http: response.status });
          return;
        }
      } catch {
        /* the server is down: try again shortly */
      }
      await sleep(150);
    }
  }
}

for (const dialect of testDialects() as Dialect[]) {
  describe(`task stages survive SIGKILL of the server (${dialect})`, { timeout: 180_000 }, () => {
    let server: ServerProcess | undefined;
    let service: CrashTaskService;
    let database: { url: string; drop: () => Promise<void> };
    before(async () => {
      database = await freshDatabaseUrl(dialect);
      service = await CrashTaskService.start();
    });
    after(async () => {
      await server?.kill('SIGKILL');
      await service.close();
      await database.drop();
    });

    it('resumes every stage after a restart and never delivers or rewrites a final result', async () => {
      const port = await freePort();
      const siteToken = randomBytes(24).toString('hex');
      // Runs wait in post_plan_completed for their apply (the simulated change), where the cases read them.
      const env = {
        ...SIMULATED_PLAN_CHANGES,
        DATABASE_URL: database.url,
        TEAMSTAGE_SITE_TOKEN: siteToken,
        TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
        TEAMSTAGE_RATE_LIMIT: '0',
        TEAMSTAGE_JOB_LEASE: '1',
        TEAMSTAGE_JOB_POLL: '0.1',
        TEAMSTAGE_TASK_RETRY_DELAYS: '0.6,0.6,0.6',
        // Longer than a restart takes on a loaded machine: a task whose callback cannot arrive while
        // the server is down for longer than this rightly errors, which is not what this test is about.
        TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '15',
        TEAMSTAGE_TASK_REQUEST_TIMEOUT: '2',
        LOG_LEVEL: 'info',
      };
      server = await startServerProcess(env, { port });
      let client = new HttpClient(server.url, 10);
      const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `crash${randomBytes(3).toString('hex')}`);
      const call = async (method: string, path: string, body?: unknown, expected = [200, 201]) => {
        const response = await client.request(method, path, ownerToken, body);
        assert.ok(expected.includes(response.status), `${method} ${path}: ${response.status} ${response.text}`);
        return response.body;
      };

      const task = await call('POST', `/organizations/${organization}/tasks`, {
        data: { type: 'tasks', attributes: { name: 'crash-task', url: service.mock.url, category: 'task', 'hmac-key': HMAC_KEY } },
      });
      const runs: Array<{ runId: string; expected: (typeof SCENARIOS)[number] }> = [];
      for (const scenario of SCENARIOS) {
        for (let copy = 0; copy < COPIES; copy++) {
          const name = `${scenario.behavior}-${scenario.enforcement}-${copy}`;
          const workspace = await call('POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name } } });
          const version = await call('POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
            data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
          });
          const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
          assert.equal(upload.status, 200);
          await call('POST', `/workspaces/${workspace.data.id}/tasks`, {
            data: {
              type: 'workspace-tasks',
              attributes: { 'enforcement-level': scenario.enforcement, stages: ['post_plan'] },
              relationships: { task: { data: { type: 'tasks', id: task.data.id } } },
            },
          });
          const run = await call('POST', '/runs', {
            data: { type: 'runs', attributes: { message: name }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } },
          });
          runs.push({ runId: run.data.id, expected: scenario });
        }
      }

      // In flight: every result has had its first request, no verdict has come back yet.
      const total = SCENARIOS.length * COPIES;
      const deadline = Date.now() + 20_000;
      while (new Set(service.deliveries().map((request) => request.json.task_result_id)).size < total) {
        assert.ok(Date.now() < deadline, `only ${service.deliveries().length} requests before the kill`);
        await sleep(20);
      }
      assert.equal(service.callbackAnswers.length, 0, 'the kill lands before any verdict');
      const firstOutput = server.output();
      await server.kill('SIGKILL');
      service.release();
      await client.close().catch(() => {});
      await sleep(500);

      const restartStarted = Date.now();
      server = await startServerProcess(env, { port });
      const restartMs = Date.now() - restartStarted;
      client = new HttpClient(server.url, 10);

      // Every stage reaches its final status.
      const finalStages = new Map<string, any>();
      const settleDeadline = Date.now() + 60_000;
      for (const { runId, expected } of runs) {
        for (;;) {
          const listed = await call('GET', `/runs/${runId}/task-stages`);
          const stage = listed.data[0];
          const run = await call('GET', `/runs/${runId}`);
          if (stage.attributes.status === expected.stage && run.data.attributes.status === expected.run) {
            finalStages.set(runId, stage);
            break;
          }
          // A stage already at its expected status may wait a moment for the run to advance.
          const settledElsewhere =
            stage.attributes.status !== expected.stage && ['passed', 'failed', 'errored', 'unreachable', 'canceled'].includes(stage.attributes.status);
          assert.ok(!settledElsewhere, `${expected.behavior}/${expected.enforcement}: stage ${stage.attributes.status}; expected ${expected.stage}`);
          assert.ok(
            Date.now() < settleDeadline,
            `${expected.behavior}/${expected.enforcement}: stage ${stage.attributes.status}, run ${run.data.attributes.status}; expected ${expected.stage}, ${expected.run}`,
          );
          await sleep(100);
        }
      }

      // Override the awaiting stages after the restart; they pass and the runs go on.
      for (const { runId, expected } of runs.filter((r) => r.expected.stage === 'awaiting_override')) {
        const stage = finalStages.get(runId);
        const overridden = await call('POST', `/task-stages/${stage.id}/actions/override`, {});
        assert.equal(overridden.data.attributes.status, 'running', expected.behavior);
        for (let i = 0; ; i++) {
          const run = await call('GET', `/runs/${runId}`);
          if (run.data.attributes.status === 'post_plan_completed') break;
          assert.ok(i < 200, `overridden run stays ${run.data.attributes.status}`);
          await sleep(50);
        }
      }

      // Results: one final status each, written once, and every request reached the service before it.
      const results = new Map<string, any>();
      for (const { runId } of runs) {
        const stage = finalStages.get(runId);
        for (const { id } of stage.relationships['task-results'].data) {
          const result = await call('GET', `/task-results/${id}`);
          results.set(id, result.data);
          const timestamps = result.data.attributes['status-timestamps'];
          const finals = FINAL_RESULT_STATUSES.filter((status) => timestamps[timestampKey(status)] !== undefined);
          assert.deepEqual(finals, [result.data.attributes.status], `${id}: exactly one final status`);
        }
      }
      // Wait out retries still scheduled before judging "never after final" (timeouts send nothing).
      await sleep(2500);
      let deliveredAfterFinal = 0;
      for (const request of service.deliveries()) {
        const result = results.get(request.json.task_result_id);
        assert.ok(result, 'a request for a result of these runs');
        assert.equal(request.signatureValid, true);
        const finalAt = Date.parse(result.attributes['status-timestamps'][timestampKey(result.attributes.status)]);
        if (request.receivedAt > finalAt) deliveredAfterFinal += 1;
      }
      assert.equal(deliveredAfterFinal, 0, 'no request reached the task service after its result was final');

      // Retried results went through all four attempts (a crash may repeat one, never skip one).
      for (const [id, result] of results) {
        const requests = service.deliveries().filter((request) => request.json.task_result_id === id);
        if (result.attributes.message?.includes('instead of 200')) assert.ok(requests.length >= 4, `${id}: ${requests.length} attempts`);
        else assert.ok(requests.length >= 1);
      }
      // Callbacks that came after a final status got 409, never a second 200 for a verdict.
      const verdicts = service.callbackAnswers.filter((answer) => answer.status !== 'running' && answer.http === 200);
      assert.equal(new Set(verdicts.map((v) => v.resultId)).size, verdicts.length);

      // Every attempt is recorded; no secret reached the logs.
      const output = firstOutput + server.output();
      await server.kill('SIGTERM');
      server = undefined;
      const handle = openDatabase(database.url);
      try {
        const attempts = await handle.db.selectFrom('delivery_attempts').select(['task_result_id', 'attempt', 'outcome']).execute();
        for (const id of results.keys()) {
          const numbers = attempts.filter((a) => a.task_result_id === id).map((a) => a.attempt).sort((a, b) => a - b);
          assert.deepEqual(numbers, numbers.map((_, i) => i + 1), `${id}: attempts 1..n recorded without gaps`);
          assert.ok(numbers.length >= 1);
        }
      } finally {
        await handle.close();
      }
      assert.ok(!output.includes(HMAC_KEY), 'the HMAC key is not logged');
      console.log(`# restart took ${restartMs} ms; ${service.deliveries().length} deliveries, ${service.callbackAnswers.length} callbacks`);
      for (const request of service.deliveries()) assert.ok(!output.includes(request.json.access_token), 'no access token is logged');
    });
  });
}
