/**
 * Issue 37: a real OpenTofu (built by scripts/build-real-clients.sh) through its `cloud` block, against a
 * Teamstage process over HTTPS (a throwaway CA in SSL_CERT_FILE), with the workspace's
 * `structured-run-output-enabled` at its default (true): plan and apply read HCP's redacted plan
 * (`GET /plans/:id/json-output-redacted`) and render it. Then a locked workspace: the apply's run is queued,
 * tofu says it waits for the locked workspace, and the run starts only once the workspace is unlocked.
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

interface Result {
  code: number | null;
  output: string;
}

describe('OpenTofu through the cloud block, structured run output on', { timeout: 10 * 60_000 }, () => {
  let dir = '';
  let certificates: TestCertificates;
  let teamstage: RealClientServer;
  let dispatcher: Agent;
  let workspaceId = '';
  const organization = 'tofu-cloud';
  const workspace = 'structured';

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

  const runTofu = (args: string[], config: string): { done: Promise<Result>; output: () => string } => {
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
    const done = new Promise<Result>((resolve) => child.on('exit', (code) => resolve({ code, output })));
    return { done, output: () => output };
  };

  const redactedReads = () => teamstage.server.output().split('\n').filter((line) => line.includes('json-output-redacted') && /"statusCode":200/.test(line)).length;

  /** The access log line of a 200 from json-output-redacted: it may be written a moment after tofu ends (bounded wait). */
  const untilRead = async (before: number, output: string) => {
    const deadline = Date.now() + 15_000;
    while (redactedReads() <= before) {
      assert.ok(Date.now() < deadline, `tofu read no redacted plan:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async () => {
    await buildRealClients('tofu');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-tofu-cloud-'));
    certificates = makeTestCertificates(path.join(dir, 'tls'));
    teamstage = await startRealClientServer('sqlite', { LOG_LEVEL: 'info' }, certificates);
    dispatcher = new Agent({ connect: { ca: certificates.ca } });
    const port = new URL(teamstage.server.url).port;
    fs.writeFileSync(path.join(dir, 'tofu.rc'), `credentials "localhost:${port}" {\n  token = "${teamstage.userToken}"\n}\n`);
    assert.equal((await api('POST', '/organizations', { data: { type: 'organizations', attributes: { name: organization, email: 'ops@example.test' } } })).status, 201);
    const created = await api('POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: workspace } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.attributes['structured-run-output-enabled'], true);
    workspaceId = created.body.data.id;
    const config = path.join(dir, 'config');
    fs.mkdirSync(config);
    fs.writeFileSync(
      path.join(config, 'main.tf'),
      `terraform {\n  cloud {\n    hostname     = "localhost:${port}"\n    organization = "${organization}"\n    workspaces {\n      name = "${workspace}"\n    }\n  }\n}\n\noutput "greeting" {\n  value = "hello"\n}\n`,
    );
    const init = await runTofu(['init', '-no-color'], config).done;
    assert.equal(init.code, 0, init.output);
  });

  after(async () => {
    await teamstage?.close();
    await dispatcher?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('plan and apply render the redacted plan (no "Failed to read JSON plan")', async () => {
    const config = path.join(dir, 'config');
    const before = redactedReads();
    const plan = await runTofu(['plan', '-no-color'], config).done;
    assert.equal(plan.code, 0, plan.output);
    assert.doesNotMatch(plan.output, /Failed to read JSON plan/);
    await untilRead(before, plan.output);
    const afterPlan = redactedReads();
    const apply = await runTofu(['apply', '-auto-approve', '-no-color'], config).done;
    assert.equal(apply.code, 0, apply.output);
    assert.doesNotMatch(apply.output, /Failed to read JSON plan/);
    await untilRead(afterPlan, apply.output);
  });

  it('a locked workspace starts no run: the apply waits, queued, until the workspace is unlocked', async () => {
    const config = path.join(dir, 'config');
    assert.equal((await api('POST', `/workspaces/${workspaceId}/actions/lock`, {})).status, 200);
    const apply = runTofu(['apply', '-auto-approve', '-no-color'], config);
    // The run tofu queued stays pending while the lock holds.
    const deadline = Date.now() + 120_000;
    let pending: { id: string; attributes: { status: string } } | undefined;
    while (!pending) {
      assert.ok(Date.now() < deadline, `no run was queued: ${apply.output()}`);
      const runs = await api('GET', `/workspaces/${workspaceId}/runs`);
      pending = runs.body.data.find((run: { attributes: { status: string; 'plan-only': boolean } }) => run.attributes.status === 'pending');
      if (!pending) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Measured through a mechanism, not a sleep: the queue says why it waits (a turn is ahead of it) and tofu has not ended.
    const shown = await api('GET', `/runs/${pending.id}`);
    assert.equal(shown.body.data.attributes.status, 'pending');
    assert.ok(shown.body.data.attributes['position-in-queue'] >= 1);
    assert.equal(await Promise.race([apply.done.then(() => 'ended'), Promise.resolve('running')]), 'running');
    // The client says why: the locked workspace's current run is this pending one (as HCP serves it), which tofu reads.
    const workspaceShown = await api('GET', `/workspaces/${workspaceId}`);
    assert.deepEqual(workspaceShown.body.data.relationships['current-run'].data, { id: pending.id, type: 'runs' });
    const said = /Waiting for the manually locked workspace to be unlocked/;
    const sayDeadline = Date.now() + 60_000;
    while (!said.test(apply.output())) {
      assert.ok(Date.now() < sayDeadline, `tofu did not say the workspace is locked:\n${apply.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal((await api('GET', `/runs/${pending.id}`)).body.data.attributes.status, 'pending', 'still no run started');
    assert.equal((await api('POST', `/workspaces/${workspaceId}/actions/unlock`, {})).status, 200);
    const result = await apply.done;
    assert.equal(result.code, 0, result.output);
  });
});
