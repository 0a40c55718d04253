/**
 * Issue 28, TLS: with TEAMSTAGE_TLS_CERT and TEAMSTAGE_TLS_KEY the server speaks HTTPS itself (what the
 * `tfe` provider and terraform's `cloud` block require), its absolute links use https, and SIGHUP re-reads
 * both files: new connections get the renewed certificate; a pair that does not match is refused with a
 * log line and the current certificate stays. Half a setting stops the start. Certificates come from a
 * throwaway CA made with openssl.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certificates.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The TLS 1.2 cipher a handshake offering only `ciphers` settles on, or the handshake's error. */
function handshake(port: number, ca: string, ciphers: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', ciphers, maxVersion: 'TLSv1.2' }, () => {
      const { name } = socket.getCipher();
      socket.end();
      resolve(name);
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.on('error', reject);
  });
}

/** The common name of the certificate a new TLS connection is shown. */
function servedCommonName(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const name = socket.getPeerCertificate().subject.CN;
      socket.end();
      resolve(Array.isArray(name) ? name.join(',') : String(name));
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.on('error', reject);
  });
}

describe('TLS served directly, reloaded on SIGHUP', { timeout: 120_000 }, () => {
  let dir: string;
  let first: TestCertificates;
  let server: ServerProcess;
  let agent: Agent;
  const certFile = () => path.join(dir, 'live-cert.pem');
  const keyFile = () => path.join(dir, 'live-key.pem');

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-tls-'));
    first = makeTestCertificates(dir, 'first');
    fs.copyFileSync(first.certFile, certFile());
    fs.copyFileSync(first.keyFile, keyFile());
    server = await startServerProcess(
      { DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, TEAMSTAGE_TLS_CERT: certFile(), TEAMSTAGE_TLS_KEY: keyFile(), LOG_LEVEL: 'info' },
      { tlsCa: first.ca },
    );
    agent = new Agent({ connect: { ca: first.ca } });
  });
  after(async () => {
    await agent?.close();
    await server?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers over HTTPS: the ping with X-TFE-Version, discovery, and https links', async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const ping = await fetch(`${server.url}/api/v2/ping`, { dispatcher: agent });
    assert.equal(ping.status, 204);
    assert.equal(ping.headers.get('x-tfe-version'), 'v202507-1');
    const discovery = await fetch(`${server.url}/.well-known/terraform.json`, { dispatcher: agent });
    assert.deepEqual(await discovery.json(), { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' });
    // TEAMSTAGE_BASE_URL defaults to https when TLS is on: upload URLs and run task links must be reachable.
    const docs = (await (await fetch(`${server.url}/api/docs`, { dispatcher: agent })).json()) as { servers: Array<{ url: string }> };
    assert.equal(docs.servers[0]!.url, server.url);
    assert.equal(await servedCommonName(server.port, first.ca), 'first');
  });

  it('TLS 1.2 takes only ECDHE with AEAD: an AES128-SHA (static RSA, CBC) handshake fails; TLS 1.3 as is', async () => {
    await assert.rejects(handshake(server.port, first.ca, 'AES128-SHA'), /handshake failure|no shared cipher|alert/i);
    await assert.rejects(handshake(server.port, first.ca, 'ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA'), /handshake failure|no shared cipher|alert/i);
    assert.match(await handshake(server.port, first.ca, 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256'), /^ECDHE-(RSA|ECDSA)-AES128-GCM-SHA256$/);
    const modern = await new Promise<string | null>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: first.ca, servername: 'localhost', minVersion: 'TLSv1.3' }, () => {
        resolve(socket.getProtocol());
        socket.end();
      });
      socket.on('error', reject);
    });
    assert.equal(modern, 'TLSv1.3');
  });

  it('plain HTTP on the TLS port gets no API answer', async () => {
    await assert.rejects(globalThis.fetch(`${server.url.replace('https:', 'http:')}/api/v2/ping`));
  });

  it('SIGHUP: new connections get the renewed certificate', async () => {
    const renewed = makeTestCertificates(dir, 'renewed');
    fs.copyFileSync(renewed.certFile, certFile());
    fs.copyFileSync(renewed.keyFile, keyFile());
    process.kill(server.pid, 'SIGHUP');
    await waitUntil(async () => (await servedCommonName(server.port, first.ca)) === 'renewed', 10_000, 'the renewed certificate was never served');
    // Log lines go out in batches, within a second.
    await waitUntil(() => /TLS certificate reloaded/.test(server.output()), 10_000, 'the reload was not logged');
    await assert.rejects(handshake(server.port, first.ca, 'AES128-SHA'), /handshake failure|no shared cipher|alert/i, 'the reloaded context keeps the cipher list');
  });

  it('SIGHUP with a key that does not match: logged, and the current certificate stays', async () => {
    const other = makeTestCertificates(dir, 'other');
    fs.copyFileSync(other.keyFile, keyFile()); // the certificate is still "renewed": a mismatched pair
    process.kill(server.pid, 'SIGHUP');
    await waitUntil(() => /TLS certificate reload failed/.test(server.output()), 10_000, 'the failed reload was not logged');
    assert.equal(await servedCommonName(server.port, first.ca), 'renewed');
    const ping = await fetch(`${server.url}/api/v2/ping`, { dispatcher: agent });
    assert.equal(ping.status, 204);
  });

  it('only one of TEAMSTAGE_TLS_CERT and TEAMSTAGE_TLS_KEY: the start fails and says why', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'half.sqlite')}`, TEAMSTAGE_TLS_CERT: certFile(), TEAMSTAGE_TLS_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    assert.notEqual(code, 0);
    assert.match(output, /TEAMSTAGE_TLS_CERT and TEAMSTAGE_TLS_KEY must be set together/);
  });
});
