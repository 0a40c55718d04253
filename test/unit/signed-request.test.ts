import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { postSignedJson, signTaskBody, USER_AGENT } from '../../src/outbound/signed-request.js';
import { emptyPlanJson, NoopExecutor } from '../../src/runs/noop-executor.js';
import { tarGzProblem } from '../../src/workspaces/archive-check.js';
import { freePort } from '../helpers/postgres-server.js';
import { tarGz } from '../helpers/run-fixtures.js';

async function server(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const instance = http.createServer(handler);
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  const port = (instance.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { instance.closeAllConnections(); instance.close(() => resolve()); }),
  };
}

describe('run task request signing', () => {
  it('is the hex HMAC-SHA512 of the exact body; empty without a key', () => {
    const body = '{"payload_version":1,"stage":"post_plan"}';
    assert.equal(signTaskBody(body, 'k'), createHmac('sha512', 'k').update(body).digest('hex'));
    assert.match(signTaskBody(body, 'k'), /^[0-9a-f]{128}$/);
    assert.notEqual(signTaskBody(body, 'k'), signTaskBody(`${body} `, 'k'), 'one byte more, another signature');
    assert.equal(signTaskBody(body, null), '');
    assert.equal(signTaskBody(body, ''), '');
  });

  it('postSignedJson sends the signed body once and answers the status; timeouts and closed ports are told apart', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const ok = await server((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(received.length === 1 ? 200 : 418).end('{}');
      });
    });
    const slow = await server(() => {});
    try {
      const body = JSON.stringify({ hello: 'world' });
      assert.deepEqual(await postSignedJson(ok.url, body, 'key', 2000), { status: 200 });
      assert.deepEqual(await postSignedJson(ok.url, body, null, 2000), { status: 418 });
      assert.equal(received[0]!.body, body);
      assert.equal(received[0]!.headers['x-tfc-task-signature'], signTaskBody(body, 'key'));
      assert.equal(received[0]!.headers['content-type'], 'application/json');
      assert.equal(received[0]!.headers['user-agent'], USER_AGENT);
      assert.equal(received[1]!.headers['x-tfc-task-signature'], '');

      const started = Date.now();
      const timedOut = await postSignedJson(slow.url, body, 'key', 200);
      assert.equal((timedOut as { error: string }).error, 'timeout');
      // The slow server never answers: without the 200 ms timeout this would wait for ever. The bound only says it
      // gave up, with room for a loaded machine.
      assert.ok(Date.now() - started < 10_000);
      const refused = await postSignedJson(`http://127.0.0.1:${await freePort()}/`, body, 'secret-key', 2000);
      assert.equal((refused as { error: string }).error, 'unreachable');
      assert.ok(!(refused as { detail: string }).detail.includes('secret-key'));
    } finally {
      await ok.close();
      await slow.close();
    }
  });
});

describe('configuration archives and the no-op executor', () => {
  it('accepts real tar.gz archives (also an empty one) and refuses anything else', async () => {
    const check = (archive: Buffer) => tarGzProblem(archive.length, [archive]);
    assert.equal(await check(tarGz()), undefined);
    assert.equal(await check(tarGz({})), undefined, 'an empty archive is still an archive');
    assert.equal(await check(tarGz({ 'big.tf': 'x'.repeat(200_000) })), undefined);
    assert.match((await check(Buffer.alloc(0)))!, /empty/);
    assert.match((await check(Buffer.from('PK\u0003\u0004 a zip file, not gzip at all')))!, /not gzip/);
    assert.match((await check(gzipSync(Buffer.from('just text that is long enough to fill a block '.repeat(20)))))!, /tar/);
    assert.ok(await check(tarGz().subarray(0, 30)));
  });

  it('judges an archive read in pieces of any size the same way, reading only its start', async () => {
    const inPieces = (archive: Buffer, size: number) => Array.from({ length: Math.ceil(archive.length / size) }, (_, i) => archive.subarray(i * size, (i + 1) * size));
    const archive = tarGz({ 'big.tf': 'x'.repeat(200_000) });
    for (const size of [1, 7, 512, 65_536]) {
      assert.equal(await tarGzProblem(archive.length, inPieces(archive, size)), undefined, `pieces of ${size}`);
      const zip = Buffer.from('PK\u0003\u0004 a zip file, not gzip at all');
      assert.match((await tarGzProblem(zip.length, inPieces(zip, size)))!, /not gzip/, `pieces of ${size}`);
    }
    let piecesRead = 0;
    async function* counted() {
      for (const piece of inPieces(Buffer.concat([tarGz(), Buffer.alloc(10 * 1024 * 1024)]), 1024)) {
        piecesRead++;
        yield piece;
      }
    }
    assert.equal(await tarGzProblem(tarGz().length + 10 * 1024 * 1024, counted()), undefined);
    assert.ok(piecesRead < 64, `${piecesRead} pieces of 1 KiB read to judge a 10 MiB upload`);
  });

  it('the no-op executor finishes both phases with no changes and a valid empty plan JSON', async () => {
    const executor = new NoopExecutor();
    const context = {
      runId: 'run-x', workspaceId: 'ws-x', workspaceName: 'w', organizationName: 'o', configurationVersionId: null, planOnly: false, isDestroy: false,
      loadConfiguration: async () => null,
    };
    const plan = await executor.plan(context);
    assert.equal(plan.status, 'finished');
    if (plan.status === 'finished') {
      assert.equal(plan.hasChanges, false);
      const json = JSON.parse(plan.jsonOutput);
      assert.deepEqual(Object.keys(json).sort(), ['configuration', 'format_version', 'planned_values', 'resource_changes', 'terraform_version']);
      assert.equal(json.format_version, '1.2');
      assert.deepEqual(json.resource_changes, []);
    }
    assert.deepEqual(await executor.apply(context), { status: 'finished', hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0 });
    assert.equal(JSON.parse(emptyPlanJson('1.5.0')).terraform_version, '1.5.0');
  });
});
