/**
 * Issue 31: examples/compose/teamstage-cluster.yaml, as an operator plays it with `podman kube play`: two
 * Teamstage nodes over one PostgreSQL (images built from Debian packages), each serving HTTPS. A team made
 * through one node is read through the other. The example's placeholders (passwords, certificate folder,
 * host ports, the secrets folder) are filled in as its comments tell an operator to. Each
 * container's liveness probe, which podman runs as its health check, passes. Skipped only where podman or
 * mmdebstrap is not installed (CI installs both: .ci/run).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Agent } from 'undici';
import { freePort } from '../helpers/postgres-server.js';
import { makeTestCertificates } from '../helpers/tls-certificates.js';
import { installed } from '../helpers/podman.js';
import { buildImages, containersConf, podmanWith } from '../helpers/podman-kube.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(root, 'examples/compose/teamstage-cluster.yaml');

const canRun = installed('podman') && installed('mmdebstrap') && installed('openssl', ['version']);

describe('the compose example: two nodes over one PostgreSQL, behind TLS', { timeout: 1_500_000, skip: canRun ? false : 'needs podman, mmdebstrap and openssl (CI installs them: .ci/run)' }, () => {
  const suffix = randomBytes(4).toString('hex');
  let image = `localhost/teamstage:compose-${suffix}`;
  let builtImage = false;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-compose-'));
  const played = path.join(work, 'cluster.yaml');
  const podman = podmanWith(containersConf(work));
  after(async () => {
    await podman(['kube', 'down', played]).catch(() => {});
    await podman(['volume', 'rm', '--force', `teamstage-postgres-data-${suffix}`]).catch(() => {});
    if (builtImage) await podman(['rmi', '--force', image]).catch(() => {});
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('plays, its probes pass, and what one node writes the other serves', async () => {
    ({ image, built: builtImage } = await buildImages(image));

    const tls = makeTestCertificates(path.join(work, 'tls'));
    fs.copyFileSync(tls.certFile, path.join(tls.dir, 'fullchain.pem'));
    fs.copyFileSync(tls.keyFile, path.join(tls.dir, 'key.pem'));
    for (const name of ['fullchain.pem', 'key.pem']) fs.chownSync(path.join(tls.dir, name), 10001, 10001);
    fs.chmodSync(tls.dir, 0o755);

    const siteToken = randomBytes(32).toString('hex');
    const password = randomBytes(16).toString('hex');
    const uid = Number((await podman(['run', '--rm', '--network=none', '--entrypoint', '/usr/bin/id', 'localhost/teamstage-postgres:trixie', '-u'])).trim());
    assert.equal(uid, 100, 'the PostgreSQL image\'s user is the one the example\'s comments name');
    const [portA, portB] = [await freePort(), await freePort()];
    // The secrets folder, as the example's comments make it: one file each, readable only by the user that reads it.
    const secrets = path.join(work, 'secrets');
    fs.mkdirSync(secrets, { mode: 0o711 });
    const secretFiles: Array<[string, string, number, number]> = [
      ['site-token', siteToken, 10001, 10001],
      ['postgres-password', password, 100, 102],
      ['database-url', `postgres://teamstage:${password}@127.0.0.1:5432/postgres`, 10001, 10001],
    ];
    for (const [name, value, uid, gid] of secretFiles) {
      fs.writeFileSync(path.join(secrets, name), `${value}\n`, { mode: 0o400 });
      fs.chownSync(path.join(secrets, name), uid, gid);
    }
    fs.chmodSync(secrets, 0o711);
    const yaml = fs
      .readFileSync(EXAMPLE, 'utf8')
      .replaceAll('/etc/teamstage/secrets', secrets)
      .replaceAll('/etc/teamstage/tls', tls.dir)
      .replaceAll('localhost/teamstage:latest', image)
      .replaceAll('hostPort: 8443', `hostPort: ${portA}`)
      .replaceAll('hostPort: 8444', `hostPort: ${portB}`)
      .replaceAll('name: teamstage-cluster', `name: teamstage-cluster-${suffix}`)
      .replaceAll('claimName: teamstage-postgres-data', `claimName: teamstage-postgres-data-${suffix}`);
    assert.doesNotMatch(yaml, /^[^#\n]*CHANGE-ME/m, 'every placeholder filled');
    fs.writeFileSync(played, yaml);
    await podman(['kube', 'play', played], 300_000);

    const dispatcher = new Agent({ connect: { ca: tls.ca } });
    const call = async (port: number, method: string, url: string, token?: string, body?: unknown) => {
      const response = await fetch(`https://127.0.0.1:${port}${url}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        // @ts-expect-error undici's dispatcher option, which Node's fetch takes
        dispatcher,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
    };
    // Bounded: the nodes restart until the database accepts them, then answer.
    const deadline = Date.now() + 180_000;
    for (const port of [portA, portB]) {
      for (;;) {
        const ready = await call(port, 'GET', '/readyz').catch(() => undefined);
        if (ready?.status === 200) break;
        if (Date.now() > deadline) throw new Error(`node on ${port} not ready: ${await podman(['pod', 'logs', '--tail', '60', `teamstage-cluster-${suffix}`]).catch((e) => String(e))}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }

    // Each container's liveness probe is its podman health check (the nodes' an exec of the image's Node, /healthz).
    for (const container of ['postgres', 'node-a', 'node-b']) await podman(['healthcheck', 'run', `teamstage-cluster-${suffix}-${container}`]);

    const user = await call(portA, 'POST', '/api/v2/admin/users', siteToken, { data: { type: 'users', attributes: { username: 'ops', email: 'ops@example.test' } } });
    assert.equal(user.status, 201, user.text);
    const token = await call(portB, 'POST', `/api/v2/users/${user.body.data.id}/authentication-tokens`, siteToken, {});
    assert.equal(token.status, 201, token.text);
    const owner = token.body.data.attributes.token as string;
    const org = await call(portA, 'POST', '/api/v2/organizations', owner, { data: { type: 'organizations', attributes: { name: 'compose', email: 'ops@example.test' } } });
    assert.equal(org.status, 201, org.text);
    const team = await call(portA, 'POST', '/api/v2/organizations/compose/teams', owner, { data: { type: 'teams', attributes: { name: 'platform' } } });
    assert.equal(team.status, 200, team.text);
    const read = await call(portB, 'GET', `/api/v2/teams/${team.body.data.id}`, owner);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.attributes.name, 'platform');
    await dispatcher.close();
  });
});
