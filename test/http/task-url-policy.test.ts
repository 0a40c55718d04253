import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { freePort } from '../helpers/postgres-server.js';
import { createRunTask, waitForRunStatus } from '../helpers/run-fixtures.js';
import { ScriptedTaskService, gatedWorkspace, stagesOf, startListeningApp, startRun } from '../helpers/task-stage-scenario.js';
import { waitUntil } from '../helpers/wait-until.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const URL_POINTER = '/data/attributes/url';
const taskBody = (attributes: Record<string, unknown>) => ({ data: { type: 'tasks', attributes } });

function callbackBody(attributes: Record<string, unknown>, outcomes?: Array<Record<string, unknown>>) {
  const body: any = { data: { type: 'task-results', attributes } };
  if (outcomes) {
    body.data.relationships = { outcomes: { data: outcomes.map((attributes) => ({ type: 'task-result-outcomes', attributes: { 'outcome-id': 'o', description: 'd', ...attributes } })) } };
  }
  return body;
}

/** Log lines captured from the app's logger (pino JSON), searchable as text. */
function capturingLogger(): { logger: Record<string, unknown>; text: () => string } {
  const lines: string[] = [];
  return { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } }, text: () => lines.join('') };
}

for (const dialect of testDialects()) {
  describe(`run task URLs under the default policy (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let service: ScriptedTaskService;
    const log = capturingLogger();
    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_REQUEST_TIMEOUT: '0.5', TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600' }, { logger: log.logger });
      mock = await MockTaskService.start();
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await mock.close();
      await ctx.close();
    });

    const create = (org: { name: string; owner: { api: ApiClient } }, url: string, name = 'checker') =>
      org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name, url, category: 'task' }));

    it('a URL to a link-local address (the cloud metadata service) is refused with a 422 that says so', async () => {
      const org = await createOrganization(ctx);
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/hook', 'http://[::ffff:169.254.169.254]/', 'https://[::ffff:a9fe:a9fe]:8443/']) {
        const refused = assertError(await create(org, url), 422, /link-local/);
        assert.equal(refused.source?.pointer, URL_POINTER, url);
      }
      assert.deepEqual((await org.owner.api.get(`/organizations/${org.name}/tasks`)).body.data, []);
    });

    it("a URL to the server's own listener is refused, by address and by a name that resolves to it", async () => {
      const org = await createOrganization(ctx);
      const own = new URL(ctx.config.baseUrl);
      const byAddress = assertError(await create(org, `${ctx.config.baseUrl}/api/v2/ping`), 422, /own listener/);
      assert.equal(byAddress.source?.pointer, URL_POINTER);
      assertError(await create(org, `http://0.0.0.0:${own.port}/api/v2/ping`), 422);
      const byName = assertError(await create(org, `http://localhost:${own.port}/api/v2/ping`), 422);
      assert.equal(byName.source?.pointer, URL_POINTER);
      assert.doesNotMatch(byName.detail ?? '', /own listener|127\.0\.0\.1|40[45]/, 'what a name resolved to stays in the log');
      assert.match(log.text(), /own listener/, 'the log says why');
      assert.deepEqual((await org.owner.api.get(`/organizations/${org.name}/tasks`)).body.data, []);
    });

    it("a failed verification's 422 does not echo the remote's status or network error; the log has them", async () => {
      const org = await createOrganization(ctx);
      const failing = await MockTaskService.start({ respond: () => ({ status: 503 }) });
      const redirecting = await MockTaskService.start({ respond: () => ({ status: 302 }) });
      const slow = await MockTaskService.start({ respond: () => ({ status: 200, delayMs: 1500 }) });
      const closedPort = await freePort();
      try {
        const details: string[] = [];
        for (const url of [failing.url, redirecting.url, slow.url, `http://127.0.0.1:${closedPort}/hook`, 'http://no-such-host.invalid/hook']) {
          const refused = assertError(await create(org, url), 422, /could not be verified/);
          assert.equal(refused.source?.pointer, URL_POINTER);
          assert.doesNotMatch(refused.detail!, /503|302|ECONNREFUSED|ENOTFOUND|refused|timed out|getaddrinfo/i, url);
          details.push(refused.detail!);
        }
        assert.equal(new Set(details).size, 1, 'every failure reads the same: the 422 tells nothing about the remote');
        const logged = log.text();
        assert.match(logged, /"httpStatus":503/);
        assert.match(logged, /"httpStatus":302/);
        assert.match(logged, /ECONNREFUSED/);
        assert.match(logged, /ENOTFOUND/);
        assert.match(logged, /run task verification failed/);
      } finally {
        await Promise.all([failing.close(), redirecting.close(), slow.close()]);
      }
    });

    it('URLs with credentials, control characters or a scheme other than http(s) are 422 with a pointer, before any request', async () => {
      const org = await createOrganization(ctx);
      const seen = mock.requests.length;
      const base = `http://127.0.0.1:${mock.port}`;
      const bad: Array<[string, RegExp]> = [
        [`http://user:secret@127.0.0.1:${mock.port}/run-task`, /credentials/],
        [`http://user@127.0.0.1:${mock.port}/run-task`, /credentials/],
        [`https://:secret@127.0.0.1:${mock.port}/run-task`, /credentials/],
        [`${base}/run\n-task`, /control characters/],
        [`${base}/run-task\r\nX-Injected: 1`, /control characters/],
        [`${base}/run\t-task`, /control characters/],
        [`${base}/run-task\u0000`, /control characters/],
        [`\u0001${base}/run-task`, /control characters/],
        [`${base}/run-task\u007f`, /control characters/],
        [`${base}/run-task\u0085`, /control characters/],
        ['ftp://127.0.0.1/x', /http or https/],
        ['file:///etc/passwd', /http or https/],
        ['gopher://127.0.0.1:6379/_INFO', /http or https/],
        ['javascript:alert(1)', /http or https/],
      ];
      for (const [url, why] of bad) {
        const refused = assertError(await create(org, url), 422, why);
        assert.equal(refused.source?.pointer, URL_POINTER, JSON.stringify(url));
      }
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      for (const [url, why] of bad) {
        const refused = assertError(await org.owner.api.patch(`/tasks/${task.id}`, taskBody({ url })), 422, why);
        assert.equal(refused.source?.pointer, URL_POINTER, JSON.stringify(url));
      }
      assert.equal(mock.requests.length, seen + 1, 'only the valid task was verified');
      assert.equal((await org.owner.api.get(`/tasks/${task.id}`)).body.data.attributes.url, mock.url);
    });

    it('the url of a callback and of each outcome must be an http(s) URL without credentials or control characters (422 with a pointer)', async () => {
      const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_running');
      const [stage] = await stagesOf(gated.api, runId);
      const resultId = stage.relationships['task-results'].data[0].id as string;
      await waitUntil(() => service.tokens.has(resultId), 15_000, 'the task service never received its request');
      const token = service.tokens.get(resultId)?.[0];
      assert.ok(token, 'the task received its request');
      const callback = new ApiClient(ctx.app, token);
      const path = `/task-results/${resultId}/callback`;

      for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'https://user:pw@x.example/', 'https://x.example/\nfoo', 'not a url']) {
        const refused = assertError(await callback.patch(path, callbackBody({ status: 'passed', url })), 422);
        assert.equal(refused.source?.pointer, URL_POINTER, url);
        const outcome = assertError(await callback.patch(path, callbackBody({ status: 'passed' }, [{ url: 'https://ok.example/1' }, { url }])), 422);
        assert.equal(outcome.source?.pointer, '/data/relationships/outcomes/data/1/attributes/url', url);
      }
      assert.equal((await gated.api.get(`/task-results/${resultId}`)).body.data.attributes.status, 'pending', 'refused callbacks change nothing');
      const accepted = await callback.patch(path, callbackBody({ status: 'passed', url: 'https://x.example/r/1' }, [{ url: 'http://x.example/o/1' }, { url: null }, {}]));
      assertStatus(accepted, 200);
      assert.equal(accepted.body.data.attributes.url, 'https://x.example/r/1');
    });

    it('a stored URL that points at a denied address is refused at every delivery attempt: a network error, logged with the reason, and nothing is sent', async () => {
      const gated = await gatedWorkspace(ctx, service, 'pass', { enforcement: 'mandatory' });
      // As a task saved before the policy existed (or before the operator tightened it) would be.
      const ownUrl = `${ctx.config.baseUrl}/api/v2/organizations`;
      await ctx.handle.db.updateTable('tasks').set({ url: ownUrl }).where('id', '=', gated.taskId).execute();
      await ctx.handle.durable?.(); // a write made outside any request reaches API reads once on disk (src/db/durable-snapshot-reads.ts)
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'errored');
      const [stage] = await stagesOf(gated.api, runId);
      const resultId = stage.relationships['task-results'].data[0].id as string;
      const result = (await gated.api.get(`/task-results/${resultId}`)).body.data;
      assert.equal(result.attributes.status, 'unreachable');
      const attempts = await ctx.handle.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).orderBy('attempt').execute();
      assert.deepEqual(attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.http_status]), [[1, 'network_error', null], [2, 'network_error', null], [3, 'network_error', null]]);
      for (const attempt of attempts) assert.match(attempt.error ?? '', /ETASKURLDENIED.*own listener/);
      assert.equal(service.deliveries(resultId).length, 0);
      assert.match(log.text(), new RegExp(`"taskResultId":"${resultId}".*own listener`));
    });
  });

  describe(`run task URLs under TEAMSTAGE_TASK_URL_DENY / _ALLOW (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    let denied: MockTaskService;
    let allowed: MockTaskService;
    before(async () => {
      // Deny the loopback network, but allow one address of it and the name localhost.
      ctx = await createTestApp(dialect, {
        TEAMSTAGE_TASK_REQUEST_TIMEOUT: '1',
        TEAMSTAGE_TASK_URL_DENY: '127.0.0.0/8',
        TEAMSTAGE_TASK_URL_ALLOW: '127.0.0.2/32, localhost',
      });
      denied = await MockTaskService.start({ host: '127.0.0.1' });
      allowed = await MockTaskService.start({ host: '127.0.0.2' });
    });
    after(async () => {
      await Promise.all([denied.close(), allowed.close()]);
      await ctx.close();
    });

    it('a deny rule blocks an address of its network: 422, and nothing reaches it', async () => {
      const org = await createOrganization(ctx);
      const refused = assertError(await org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'd', url: denied.url, category: 'task' })), 422, /TEAMSTAGE_TASK_URL_DENY/);
      assert.equal(refused.source?.pointer, URL_POINTER);
      assert.equal(denied.requests.length, 0);
    });

    it('an allow rule admits an address inside a denied network, and a name', async () => {
      const org = await createOrganization(ctx);
      await createRunTask(org.owner.api, org.name, allowed.url, { name: 'by-address' });
      assert.equal(allowed.requests.length, 1);
      await createRunTask(org.owner.api, org.name, `http://localhost:${denied.port}/run-task`, { name: 'by-name' });
      assert.equal(denied.requests.length, 1, 'localhost is allowed by name, whatever it resolves to');
      const task = await createRunTask(org.owner.api, org.name, allowed.url, { name: 'moved' });
      assertError(await org.owner.api.patch(`/tasks/${task.id}`, taskBody({ url: denied.url })), 422, /TEAMSTAGE_TASK_URL_DENY/);
      assert.equal(denied.requests.length, 1);
    });
  });
}
