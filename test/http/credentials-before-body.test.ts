/**
 * Issue 14 item 1: credentials are checked before a byte of a request body is read. Each request here
 * announces a large body and sends none: the answer must come anyway, at once (before the fix the server
 * waited for the body it meant to buffer).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization } from '../helpers/fixtures.js';
import { RawConnection, jsonApiError } from '../helpers/raw-http.js';
import { createWorkspace, tarGz } from '../helpers/run-fixtures.js';
import { ScriptedTaskService, gatedWorkspace, stagesOf, startListeningApp, startRun } from '../helpers/task-stage-scenario.js';
import { waitUntil } from '../helpers/wait-until.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';

const MiB = 1024 * 1024;
/** Generous for a loaded machine; the body never comes, so without the fix no answer ever would. */
const PROMPTLY_MS = 3000;

for (const dialect of testDialects()) {
  describe(`credentials before the body (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let port: number;
    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600' });
      port = (ctx.app.server.address() as { port: number }).port;
    });
    after(() => ctx.close());

    /** Sends only the head of a request that announces `length` bytes; answers the connection and its answer. */
    async function headOnly(method: string, path: string, length: number, headers: Record<string, string> = {}) {
      const connection = await RawConnection.open(port);
      const lines = Object.entries({ host: '127.0.0.1', 'content-length': String(length), ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
      await connection.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
      return { connection, response: await connection.response(PROMPTLY_MS) };
    }

    async function newUploadUrl(attributes: Record<string, unknown> = { 'auto-queue-runs': false }): Promise<string> {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes },
      });
      assert.equal(created.status, 201, created.text);
      return new URL(created.body.data.attributes['upload-url']).pathname;
    }

    it('an upload to a made-up URL is answered 404 before its body is sent, and the connection closes', async () => {
      const { connection, response } = await headOnly('PUT', '/api/v2/configuration-versions/uploads/made-up-token', 80 * MiB, {
        'content-type': 'application/octet-stream',
      });
      try {
        assert.equal(response?.status, 404, 'answered without waiting for the 80 MiB body');
        assert.equal(jsonApiError(response)?.title, 'not found');
        // The server discards what comes of the refused body for a moment (so that a client still sending
        // can read the answer), then stops waiting for it.
        assert.ok(await connection.waitForClose(2000 + PROMPTLY_MS), 'the server does not wait long for the body it refused');
      } finally {
        connection.destroy();
      }
    });

    it('an upload to the URL of a version a run was made from is answered 409 before its body is sent', async () => {
      // auto-queue-runs: the first upload queues a run from the version, so its archive may not be replaced.
      const path = await newUploadUrl({});
      const first = await RawConnection.open(port);
      const archive = tarGz();
      await first.write(`PUT ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${archive.length}\r\n\r\n`);
      await first.write(archive);
      assert.equal((await first.response(PROMPTLY_MS))?.status, 200);
      first.destroy();
      const { connection, response } = await headOnly('PUT', path, 80 * MiB);
      connection.destroy();
      assert.equal(response?.status, 409);
      assert.equal(jsonApiError(response)?.title, 'conflict');
    });

    it('Expect: 100-continue is granted only to a valid upload URL, so a refused client never sends its body', async () => {
      const refused = await headOnly('PUT', '/api/v2/configuration-versions/uploads/made-up-token', 80 * MiB, { expect: '100-continue' });
      refused.connection.destroy();
      assert.equal(refused.response?.status, 404);
      assert.deepEqual(refused.connection.responses.map((response) => response.status), [404], 'no 100 Continue before the refusal');

      const path = await newUploadUrl();
      const archive = tarGz();
      const granted = await RawConnection.open(port);
      try {
        await granted.write(`PUT ${path} HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-length: ${archive.length}\r\n\r\n`);
        await waitUntil(() => granted.responses.length > 0, 15_000, 'no interim answer to the valid URL');
        assert.equal(granted.responses[0]?.status, 100, 'the valid URL is told to go on');
        await granted.write(archive);
        assert.equal((await granted.response(PROMPTLY_MS))?.status, 200);
      } finally {
        granted.destroy();
      }
    });

    it('a callback with a wrong token, or for an unknown result, is answered before its body is sent', async () => {
      const service = await ScriptedTaskService.start();
      try {
        const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
        const runId = await startRun(gated);
        await waitForRunStatus(gated.api, runId, 'post_plan_running');
        const [stage] = await stagesOf(gated.api, runId);
        const resultId = stage.relationships['task-results'].data[0].id as string;
        const json = { 'content-type': 'application/vnd.api+json' };
        for (const [path, authorization, status] of [
          [`/api/v2/task-results/${resultId}/callback`, 'Bearer not-the-access-token', 401],
          [`/api/v2/task-results/${resultId}/callback`, undefined, 401],
          ['/api/v2/task-results/taskrs-doesnotexist1234/callback', 'Bearer not-the-access-token', 404],
        ] as const) {
          const { connection, response } = await headOnly('PATCH', path, MiB - 1, authorization ? { ...json, authorization } : json);
          connection.destroy();
          assert.equal(response?.status, status, `${path} ${authorization ?? 'without a token'}`);
          assert.equal(jsonApiError(response)?.status, String(status));
        }
      } finally {
        await service.close();
      }
    });

    it('an API request without a valid token, or to no route, is answered before its body is sent', async () => {
      const json = { 'content-type': 'application/vnd.api+json' };
      for (const [method, path, headers, status] of [
        ['POST', '/api/v2/organizations', json, 401],
        ['POST', '/api/v2/organizations', { ...json, authorization: 'Bearer made-up' }, 401],
        ['POST', '/not-an-api-route', json, 404],
      ] as const) {
        const { connection, response } = await headOnly(method, path, MiB - 1, headers);
        connection.destroy();
        assert.equal(response?.status, status, `${method} ${path}`);
        assert.equal(jsonApiError(response)?.status, String(status));
      }
    });
  });
}
