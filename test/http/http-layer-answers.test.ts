/**
 * Issue 14 items 1 and 10: what the HTTP layer answers by itself (oversized or malformed requests, slow
 * clients, a server closing) is a JSON:API error document, and slow or idle clients are cut off after the
 * configured timeouts. Real sockets: node:http's parser and timers are what is under test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization } from '../helpers/fixtures.js';
import { RawConnection, jsonApiError, type RawResponse } from '../helpers/raw-http.js';
import { createWorkspace } from '../helpers/run-fixtures.js';
import { sleep } from '../helpers/task-stage-scenario.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const TIMEOUTS = { TEAMSTAGE_HTTP_HEADERS_TIMEOUT: '1', TEAMSTAGE_HTTP_REQUEST_TIMEOUT: '2', TEAMSTAGE_HTTP_KEEP_ALIVE_TIMEOUT: '1' };
/** How late a timeout may be cut on a loaded machine: node:http checks every quarter of the headers timeout. */
const SLACK_MS = 2500;

function assertJsonApiError(response: RawResponse | undefined, status: number, title: string): void {
  assert.ok(response, `an answer ${status} came`);
  assert.equal(response.status, status);
  const error = jsonApiError(response);
  assert.ok(error, `a JSON:API error document, got ${response.headers['content-type']}: ${response.body.slice(0, 200)}`);
  assert.equal(error.status, String(status));
  assert.equal(error.title, title);
}

for (const dialect of testDialects()) {
  describe(`HTTP-layer answers and timeouts (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let port: number;
    before(async () => {
      ctx = await createTestApp(dialect, TIMEOUTS);
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      port = (ctx.app.server.address() as { port: number }).port;
    });
    after(() => ctx.close());

    async function exchange(request: string | Buffer, timeoutMs = 3000): Promise<{ response: RawResponse | undefined; closed: boolean }> {
      const connection = await RawConnection.open(port);
      try {
        await connection.write(request);
        const response = await connection.response(timeoutMs);
        return { response, closed: await connection.waitForClose(timeoutMs) };
      } finally {
        connection.destroy();
      }
    }

    it('headers over 16 KiB: 431 as JSON:API', async () => {
      const { response, closed } = await exchange(`GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
      assertJsonApiError(response, 431, 'request header fields too large');
      assert.ok(closed);
    });

    it('a URL over 16 KiB: 414 as JSON:API', async () => {
      const { response } = await exchange(`GET /api/v2/ping?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assertJsonApiError(response, 414, 'uri too long');
    });

    it('a malformed request line, an HTTP/1.1 request without Host, an unknown Expect: 400, 400, 417 as JSON:API', async () => {
      assertJsonApiError((await exchange('THIS IS NOT HTTP\r\n\r\n')).response, 400, 'bad request');
      assertJsonApiError((await exchange('GET /api/v2/ping HTTP/1.1\r\n\r\n')).response, 400, 'bad request');
      assertJsonApiError((await exchange('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n')).response, 417, 'expectation failed');
      const ok = await exchange('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(ok.response?.status, 204, 'a well-formed request still passes');
    });

    it('headers sent too slowly: 408 as JSON:API after the headers timeout, and the connection closes', async () => {
      const connection = await RawConnection.open(port);
      try {
        await connection.write('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\n');
        const started = Date.now();
        // A header line every 200 ms: never idle, never done.
        const dribble = setInterval(() => void connection.write(`X-Slow-${Date.now()}: 1\r\n`), 200);
        const response = await connection.response(1000 + SLACK_MS + 2000);
        clearInterval(dribble);
        assertJsonApiError(response, 408, 'request timeout');
        assert.ok(Date.now() - started < 1000 + SLACK_MS, `cut off after ${Date.now() - started} ms (headers timeout 1 s)`);
        assert.ok(await connection.waitForClose(1000));
      } finally {
        connection.destroy();
      }
    });

    it('a body sent a byte at a time: 408 as JSON:API after the request timeout, and the connection closes', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, { data: { type: 'configuration-versions' } });
      const path = new URL(created.body.data.attributes['upload-url']).pathname;
      const connection = await RawConnection.open(port);
      try {
        const started = Date.now();
        await connection.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`);
        await connection.write(Buffer.alloc(1024 * 1024, 1));
        const dribble = setInterval(() => void connection.write(Buffer.from([1])), 200);
        const response = await connection.response(2000 + SLACK_MS + 2000);
        clearInterval(dribble);
        assertJsonApiError(response, 408, 'request timeout');
        assert.ok(Date.now() - started < 2000 + SLACK_MS, `cut off after ${Date.now() - started} ms (request timeout 2 s)`);
        assert.ok(await connection.waitForClose(1000));
      } finally {
        connection.destroy();
      }
      const version = await org.owner.api.get(`/configuration-versions/${created.body.data.id}`);
      assert.equal(version.body.data.attributes.status, 'pending', 'nothing of the cut-off upload was stored');
    });

    it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
      const connection = await RawConnection.open(port);
      try {
        await connection.write('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\n\r\n');
        assert.equal((await connection.response(3000))?.status, 204);
        const idleSince = Date.now();
        assert.ok(await connection.waitForClose(1000 + SLACK_MS), 'closed within the keep-alive timeout (1 s)');
        assert.ok(Date.now() - idleSince >= 800, 'not before it');
      } finally {
        connection.destroy();
      }
    });

    it('over the body limit: 413 as JSON:API', async () => {
      const { response } = await exchange(
        `POST /api/v2/organizations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.siteToken}\r\nContent-Type: application/vnd.api+json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
      );
      assertJsonApiError(response, 413, 'payload too large');
    });
  });

  describe(`while the server closes (${dialect})`, { timeout: 60_000 }, () => {
    it('a request that arrives gets 503 as JSON:API and the connection closes', async () => {
      const ctx = await createTestApp(dialect);
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (ctx.app.server.address() as { port: number }).port;
      const connection = await RawConnection.open(port);
      let closing: Promise<void> | undefined;
      try {
        // Headers on their way when the server starts closing: the connection is not idle, so it stays.
        await connection.write('GET /api/v2/ping HTTP/1.1\r\nHost: x\r\n');
        await sleep(100);
        closing = ctx.app.close();
        await sleep(200);
        await connection.write('\r\n');
        const response = await connection.response(3000);
        assertJsonApiError(response, 503, 'service unavailable');
        assert.equal(response?.headers.connection, 'close');
        assert.ok(await connection.waitForClose(3000));
      } finally {
        connection.destroy();
        await closing;
        await ctx.close();
      }
    });
  });
}
