/**
 * Issue 14 item 1 against a real server process: uploads with made-up tokens cost no memory, a valid
 * 80 MiB upload costs a bounded amount, and a client that dribbles its body is cut off at the request
 * timeout. Prints the figures RELIABILITY.md quotes (peak RSS from /proc VmHWM, cut-off time).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { RawConnection, jsonApiError } from '../helpers/raw-http.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const MiB = 1024 * 1024;
const REQUEST_TIMEOUT_S = 4;
/**
 * What the server's peak may grow by. Made-up tokens: nothing is read, so little (before the fix: 80 MiB per
 * upload, 438 MiB for three). A valid upload streams through small buffers; V8 frees them in batches,
 * so the peak rises by up to its external-memory GC threshold (about 50 MiB measured), then stays there
 * whatever the size or number of uploads (before the fix: the whole archive, more than once).
 */
const MADE_UP_GROWTH_BOUND = 32 * MiB;
const VALID_GROWTH_BOUND = 96 * MiB;

const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/**
 * PUTs `total` bytes (the archive, then zeros) as fast as the server takes them, or until it answers or
 * closes; answers the response, how many bytes were written and when the answer came.
 */
async function put(port: number, uploadPath: string, total: number, start: Buffer = Buffer.alloc(0), deadlineMs = 60_000) {
  const connection = await RawConnection.open(port);
  const began = Date.now();
  try {
    await connection.write(`PUT ${uploadPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`);
    let sent = 0;
    const zeros = Buffer.alloc(MiB);
    if (start.length > 0 && (await connection.write(start))) sent += start.length;
    while (sent < total && connection.responses.length === 0 && !connection.closed && Date.now() - began < deadlineMs) {
      const piece = zeros.subarray(0, Math.min(MiB, total - sent));
      if (!(await connection.write(piece))) break;
      sent += piece.length;
    }
    const response = await connection.response(Math.max(1000, deadlineMs - (Date.now() - began)));
    return { response, sent, ms: (response?.atMs ?? Date.now() - began) };
  } finally {
    connection.destroy();
  }
}

describe('uploads under attack (real process)', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-uploads-'));
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp);
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('made-up tokens cost no memory, a valid 80 MiB upload a bounded amount, a dribbling client is cut off', async () => {
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_HTTP_HEADERS_TIMEOUT: '2',
      TEAMSTAGE_HTTP_REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
      // Temporary upload files go here, so the test can see that none is left behind.
      TMPDIR: tmp,
    });
    const client = new HttpClient(server.url, 4);
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `up${randomBytes(3).toString('hex')}`);
    const workspace = await client.request('POST', `/organizations/${organization}/workspaces`, ownerToken, { data: { type: 'workspaces', attributes: { name: 'uploads' } } });
    assert.equal(workspace.status, 201, workspace.text);
    const uploadPath = async () => {
      const created = await client.request('POST', `/workspaces/${workspace.body.data.id}/configuration-versions`, ownerToken, {
        data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
      });
      assert.equal(created.status, 201, created.text);
      return { id: created.body.data.id as string, path: new URL(created.body.data.attributes['upload-url']).pathname };
    };
    const baseline = server.peakRssBytes();

    // Three 80 MiB uploads with made-up tokens at once.
    const attacks = await Promise.all(
      [1, 2, 3].map((n) => put(server!.port, `/api/v2/configuration-versions/uploads/made-up-${n}-${randomBytes(8).toString('hex')}`, 80 * MiB)),
    );
    const afterAttacks = server.peakRssBytes();

    // One valid 80 MiB upload (a real tar.gz start, then zeros), then its download.
    const valid = await uploadPath();
    const uploaded = await put(server.port, valid.path, 80 * MiB, tarGz());
    assert.equal(uploaded.response?.status, 200, uploaded.response?.body);
    const download = await fetch(`${server.url}/api/v2/configuration-versions/${valid.id}/download`, { headers: { authorization: `Bearer ${ownerToken}` } });
    assert.equal(download.status, 200);
    let downloaded = 0;
    for await (const chunk of download.body!) downloaded += (chunk as Uint8Array).length;
    assert.equal(downloaded, 80 * MiB, 'the archive comes back whole');
    const afterValid = server.peakRssBytes();

    // A client that sends 10 MiB of a 99 MiB body, then a byte every 500 ms.
    const slow = await uploadPath();
    const connection = await RawConnection.open(server.port);
    let cutOffMs: number;
    let slowAnswer;
    let slowClosed: boolean;
    try {
      await connection.write(`PUT ${slow.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${99 * MiB}\r\n\r\n`);
      await connection.write(Buffer.concat([tarGz(), Buffer.alloc(10 * MiB)]));
      const dribble = setInterval(() => void connection.write(Buffer.from([0])), 500);
      slowAnswer = await connection.response((REQUEST_TIMEOUT_S + 20) * 1000);
      slowClosed = await connection.waitForClose(5000);
      clearInterval(dribble);
      cutOffMs = slowAnswer?.atMs ?? connection.closedAfterMs ?? Infinity;
    } finally {
      connection.destroy();
    }
    const stillPending = await client.request('GET', `/configuration-versions/${slow.id}`, ownerToken);

    await client.close();
    // The cut-off upload's temporary file goes as soon as the server has seen the connection close.
    // (tsx, which runs the server from source, keeps its cache there too.)
    // The upload spools (http/spooled-body.ts); the OPA capabilities file lives as long as the server, by design.
    const uploadFiles = () => fs.readdirSync(tmp).filter((name) => name.startsWith('teamstage-body-'));
    let leftovers = uploadFiles();
    for (let i = 0; i < 50 && leftovers.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      leftovers = uploadFiles();
    }
    console.log(
      `peak RSS: ${mib(baseline)} after start; ${mib(afterAttacks)} after 3 concurrent 80 MiB uploads with made-up tokens ` +
        `(answered 404 in ${attacks.map((a) => a.ms).join(', ')} ms, after ${attacks.map((a) => mib(a.sent)).join(', ')} written); ` +
        `${mib(afterValid)} after a valid 80 MiB upload and its download; ` +
        `a client dribbling its body cut off after ${cutOffMs} ms (request timeout ${REQUEST_TIMEOUT_S} s, answer ${slowAnswer?.status ?? 'none'}); ` +
        `${leftovers.length} temporary files left`,
    );
    for (const attack of attacks) {
      assert.equal(attack.response?.status, 404, 'a made-up upload URL is refused');
      assert.equal(jsonApiError(attack.response)?.title, 'not found');
    }
    assert.ok(slowAnswer || slowClosed, 'the server answered the dribbling client or closed its connection');
    if (slowAnswer) assert.equal(jsonApiError(slowAnswer)?.status, '408', slowAnswer.body);
    assert.ok(cutOffMs < (REQUEST_TIMEOUT_S + 3) * 1000, `cut off after ${cutOffMs} ms (request timeout ${REQUEST_TIMEOUT_S} s)`);
    assert.equal(stillPending.body.data.attributes.status, 'pending', 'nothing of the cut-off upload was stored');
    assert.ok(afterAttacks - baseline < MADE_UP_GROWTH_BOUND, `peak RSS grew by ${mib(afterAttacks - baseline)} under made-up uploads`);
    assert.ok(afterValid - baseline < VALID_GROWTH_BOUND, `peak RSS grew by ${mib(afterValid - baseline)} with a valid 80 MiB upload`);
    assert.deepEqual(leftovers, [], 'no temporary upload file is left behind');
  });
});
