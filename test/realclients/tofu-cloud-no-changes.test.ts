/**
 * Issue 34 item 5: a real OpenTofu (built by scripts/build-real-clients.sh) through its `cloud` block against a
 * remote-mode workspace (the built-in executor, whose plans have no changes by default). tofu's cloud backend
 * returns as soon as the plan has no changes and confirms nothing (backend_apply.go), so the run must end by
 * itself: `tofu apply -auto-approve` exits 0, its run is `planned_and_finished`, and the next apply starts at
 * once instead of queueing behind a run that waits for a confirmation nobody will give.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch } from 'undici';
import { buildRealClients, realClientsDir, startRealClientServer, type RealClientServer } from '../helpers/real-clients.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certificates.js';

const tofu = path.join(realClientsDir(), 'bin/tofu');
/** Bounds each tofu command: an apply queued behind a held run would wait forever (the failure this guards). */
const TOFU_TIMEOUT_MS = 180_000;

describe('OpenTofu through the cloud block, remote mode, a configuration with no changes', { timeout: 10 * 60_000 }, () => {
  let dir = '';
  let config = '';
  let certificates: TestCertificates;
  let teamstage: RealClientServer;
  let dispatcher: Agent;
  let workspaceId = '';
  const organization = 'tofu-nochange';
  const workspace = 'nothing-to-do';

  const api = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${teamstage.server.url}/api/v2${pathname}`, {
      method,
      headers: { authorization: `Bearer ${teamstage.userToken}`, 'content-type': 'application/vnd.api+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  const runTofu = (args: string[]): Promise<{ code: number | null; output: string }> => {
    const child = spawn(tofu, args, {
      cwd: config,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        TF_CLI_CONFIG_FILE: path.join(dir, 'tofu.rc'),
        SSL_CERT_FILE: certificates.caFile,
        TF_IN_AUTOMATION: '1',
        CHECKPOINT_DISABLE: '1',
        TF_INPUT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`tofu ${args.join(' ')} did not end within ${TOFU_TIMEOUT_MS} ms:\n${output}`));
      }, TOFU_TIMEOUT_MS);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  };

  const runs = async (): Promise<Array<{ id: string; attributes: Record<string, any> }>> => {
    const listed = await api('GET', `/workspaces/${workspaceId}/runs`);
    assert.equal(listed.status, 200);
    return listed.body.data;
  };

  before(async () => {
    await buildRealClients('tofu');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-tofu-nochange-'));
    certificates = makeTestCertificates(path.join(dir, 'tls'));
    // The built-in executor at its default: no TEAMSTAGE_SIMULATED_PLAN_CHANGES, plans without changes.
    teamstage = await startRealClientServer('sqlite', {}, certificates);
    dispatcher = new Agent({ connect: { ca: certificates.ca } });
    const port = new URL(teamstage.server.url).port;
    fs.writeFileSync(path.join(dir, 'tofu.rc'), `credentials "localhost:${port}" {\n  token = "${teamstage.userToken}"\n}\n`);
    assert.equal((await api('POST', '/organizations', { data: { type: 'organizations', attributes: { name: organization, email: 'ops@example.test' } } })).status, 201);
    const created = await api('POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: workspace } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.attributes['execution-mode'], 'remote');
    workspaceId = created.body.data.id;
    config = path.join(dir, 'config');
    fs.mkdirSync(config);
    fs.writeFileSync(
      path.join(config, 'main.tf'),
      `terraform {\n  cloud {\n    hostname     = "localhost:${port}"\n    organization = "${organization}"\n    workspaces {\n      name = "${workspace}"\n    }\n  }\n}\n`,
    );
    const init = await runTofu(['init', '-no-color']);
    assert.equal(init.code, 0, init.output);
  });

  after(async () => {
    await teamstage?.close();
    await dispatcher?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The workspace's runs, newest first, and the newest one's id must be new (each apply queues one run). */
  const newestRun = async (seen: Set<string>) => {
    const listed = await runs();
    const newest = listed.find((candidate) => !seen.has(candidate.id));
    assert.ok(newest, 'tofu created a run');
    seen.add(newest.id);
    return newest;
  };

  it('apply -auto-approve and a plain apply exit 0, each run ends planned_and_finished, and the next apply starts at once', async () => {
    const seen = new Set<string>();
    // -auto-approve: tofu creates the run with auto-apply; with nothing to apply it must still end after its plan.
    const first = await runTofu(['apply', '-auto-approve', '-no-color']);
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /No changes/);
    const firstRun = await newestRun(seen);
    assert.equal(firstRun.attributes.status, 'planned_and_finished', `tofu left its run ${firstRun.attributes.status}`);
    assert.equal(firstRun.attributes['has-changes'], false);

    // A plain apply (no -auto-approve, input off): tofu returns once it sees has-changes false and confirms
    // nothing, so a run that waited for a confirmation would hold the workspace until someone canceled it.
    const plain = await runTofu(['apply', '-no-color']);
    assert.equal(plain.code, 0, plain.output);
    const plainRun = await newestRun(seen);
    assert.equal(plainRun.attributes.status, 'planned_and_finished', `tofu left its run ${plainRun.attributes.status}`);
    assert.equal(plainRun.attributes.actions['is-confirmable'], false);

    // The workspace is free: the next apply's run is not queued behind another (it would wait for ever).
    const next = await runTofu(['apply', '-auto-approve', '-no-color']);
    assert.equal(next.code, 0, next.output);
    const nextRun = await newestRun(seen);
    assert.equal(nextRun.attributes.status, 'planned_and_finished');
    assert.equal(nextRun.attributes['position-in-queue'], 0);
  });
});
