/**
 * Issue 19: the container image. Builds it (scripts/build-image.sh), runs it with a volume, creates a team
 * through the API, stops and starts the container and reads the team back, and checks that SIGTERM stops
 * it within a few seconds with exit code 0. Its OPA (issue 29) judges a real plan inside the container. Prints the image's size and its start-to-ready time.
 * Skipped only where podman is not installed (CI installs podman, runc and mmdebstrap: .ci/run).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { freePort } from '../helpers/postgres-server.js';
import { installed, podmanFlags, runCommand } from '../helpers/podman.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { waitUntil } from '../helpers/wait-until.js';


const hasPodman = installed('podman');
const runLimits = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096'];
const run = runCommand;

const podman = (args: string[], timeoutMs = 60_000) => run('podman', [...podmanFlags, ...args], timeoutMs);

async function waitReady(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) return Date.now() - started;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - started > timeoutMs) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The container's log once its `starts`-th start has printed its last line ("listening", after the site token's):
 * /readyz answers as the server listens, a moment before those lines are written.
 */
async function startLog(container: string, starts = 1, timeoutMs = 30_000): Promise<string> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const logs = await podman(['logs', container]);
    if (logs.split('"msg":"Teamstage is listening on ').length - 1 >= starts) return logs;
    if (Date.now() > deadline) throw new Error(`start ${starts} printed no "listening" line within ${timeoutMs} ms:\n${logs}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Mandatory, and broken by 120_basic's plan (it creates resources). */
const NO_CREATES = 'package teamstage.no_creates\nimport rego.v1\ndeny contains msg if {\n  some change in input.plan.resource_changes\n  "create" in change.change.actions\n  msg := sprintf("%s would be created", [change.address])\n}\n';

/**
 * Issue 29: the image's OPA judges a real plan. A policy that does not compile is refused with OPA's own
 * message, a mandatory one that the plan breaks holds the post-plan stage with the violations listed.
 */
async function policyEvaluatesInside(client: HttpClient, url: string, ownerToken: string, organization: string): Promise<void> {
  const call = async (method: string, route: string, body: unknown, status: number) => {
    const response = await client.request(method, route, ownerToken, body);
    assert.equal(response.status, status, `${method} ${route}: ${response.text}`);
    return response.body;
  };
  const workspace = await call('POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'gated', 'execution-mode': 'agent' } } }, 201);
  const policy = await call('POST', `/organizations/${organization}/policies`, {
    data: { type: 'policies', attributes: { name: 'no-creates', kind: 'opa', query: 'data.teamstage.no_creates.deny', 'enforcement-level': 'mandatory' } },
  }, 201);
  const broken = await client.request('PUT', `/policies/${policy.data.id}/upload`, ownerToken, 'package broken\ndeny contains msg if {\n');
  assert.equal(broken.status, 422, broken.text);
  assert.match(broken.body.errors[0].detail, /does not compile: 3:0: unexpected eof token/, 'OPA\'s own message');
  await call('PUT', `/policies/${policy.data.id}/upload`, NO_CREATES, 204);
  await call('POST', `/organizations/${organization}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: 'gate', kind: 'opa', overridable: true },
      relationships: { policies: { data: [{ id: policy.data.id, type: 'policies' }] }, workspaces: { data: [{ id: workspace.data.id, type: 'workspaces' }] } },
    },
  }, 201);
  const version = await call('POST', `/workspaces/${workspace.data.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } }, 201);
  // The container's own base URL names its port inside; the path is the same from here.
  const uploaded = await fetch(`${url}${new URL(version.data.attributes['upload-url']).pathname}`, { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(uploaded.status, 200);
  const run = await call('POST', '/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } }, 201);
  const runId = run.data.id as string;
  const planId = run.data.relationships.plan.data.id as string;
  const status = async () => (await call('GET', `/runs/${runId}`, undefined, 200)).data.attributes.status as string;
  await waitUntil(async () => (await status()) === 'plan_queued', 30_000, 'the plan was not queued');
  await call('POST', `/plans/${planId}/actions/claim`, undefined, 200);
  await call('PUT', `/plans/${planId}/json-output`, fs.readFileSync(path.join(ROOT, 'test/fixtures/terraform-plans/120_basic/plan.json'), 'utf8'), 200);
  await call('POST', `/plans/${planId}/actions/report`, { status: 'finished' }, 200);
  await waitUntil(async () => (await status()) === 'post_plan_awaiting_decision', 60_000, 'the policy did not hold the run');
  const [stage] = (await call('GET', `/runs/${runId}/task-stages`, undefined, 200)).data;
  const [evaluation] = (await call('GET', `/task-stages/${stage.id}/policy-evaluations`, undefined, 200)).data;
  assert.equal(evaluation.attributes.status, 'failed');
  const [outcome] = (await call('GET', `/policy-evaluations/${evaluation.id}/policy-set-outcomes`, undefined, 200)).data;
  const [judged] = outcome.attributes.outcomes;
  assert.equal(judged.status, 'failed');
  assert.ok(judged.output.some((line: { print: string }) => line.print === 'null_resource.bar would be created'), JSON.stringify(judged));
}

/** docs/operations.md's ```sh block that names this file as its runner ("Run it in a container"). */
function documentedBlock(): string {
  const lines = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8').split('\n');
  const marker = lines.indexOf('<!-- commands run by: test/system/container-image.test.ts -->');
  assert.ok(marker >= 0 && lines[marker + 1] === '```sh', "docs/operations.md's container block and its marker");
  const end = lines.indexOf('```', marker + 2);
  return lines.slice(marker + 2, end).join('\n');
}

const SITE_TOKEN_SHOWN = /"msg":"Site admin token \(shown once, also saved to \/data\/site-token\)","token":"([^"]+)"/g;

describe('container image', { timeout: 1_200_000 }, () => {
  const suffix = randomBytes(4).toString('hex');
  const image = `localhost/teamstage:test-${suffix}`;
  const container = `teamstage-test-${suffix}`;
  const volume = `teamstage-test-${suffix}`;
  after(async () => {
    if (!hasPodman) return;
    await podman(['rm', '--force', '--time', '0', container]).catch(() => {});
    await podman(['volume', 'rm', '--force', volume]).catch(() => {});
    await podman(['rmi', '--force', image]).catch(() => {});
  });

  it('runs with a volume, keeps a team across a restart, stops gracefully on SIGTERM (exit 0)', { skip: hasPodman ? false : 'podman is not installed (CI installs podman, runc and mmdebstrap: .ci/run)' }, async () => {
    const build = await run('bash', ['scripts/build-image.sh'], 900_000, { ...process.env, TEAMSTAGE_IMAGE: image });
    assert.match(build, /better-sqlite3 loads, node v20\./);
    const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).trim());
    // No anonymous volume: with PostgreSQL a container needs none (issue 31 item 6); SQLite mounts /data.
    assert.equal((await podman(['image', 'inspect', '--format', '{{len .Config.Volumes}}', image])).trim(), '0', 'the image declares no volume');

    await podman(['volume', 'create', volume]);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Published on the loopback address only; inside, the image's own HOST=0.0.0.0 and PORT=8080.
    const started = Date.now();
    await podman(['run', '--detach', '--name', container, ...runLimits, '--publish', `127.0.0.1:${port}:8080`, '--volume', `${volume}:/data`, '--env', 'TEAMSTAGE_RATE_LIMIT=0', image]);
    const readyMs = await waitReady(url, 60_000);
    const startToReadyMs = Date.now() - started;
    assert.ok(readyMs >= 0);

    // The generated site token is in the log once, and is the one kept in the volume.
    const logs = await startLog(container);
    const shown = [...logs.matchAll(SITE_TOKEN_SHOWN)].map((match) => match[1]!);
    assert.equal(shown.length, 1, logs);
    const siteToken = shown[0]!;
    assert.equal((await podman(['exec', container, 'cat', '/data/site-token'])).trim(), siteToken);
    assert.equal((await podman(['exec', container, 'id', '-u'])).trim(), '10001', 'the server does not run as root');
    await podman(['healthcheck', 'run', container]);
    // What the server serves besides the API is in the image too: the console, the pipeline client, and
    // which build it is (package version and commit, not `unknown`).
    assert.equal((await fetch(`${url}/app/`)).status, 200, 'the web console');
    assert.equal((await fetch(`${url}/pipeline/teamstage-pipeline.mjs`)).status, 200, 'the pipeline client');
    assert.match((await fetch(`${url}/api/v2/ping`)).headers.get('x-teamstage-version') ?? '', /^\d+\.\d+\.\d+\+(?!unknown)[0-9a-z.-]+$/, 'the build');

    let client = new HttpClient(url, 2);
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `img${suffix}`);
    const created = await client.request('POST', `/organizations/${organization}/teams`, ownerToken, { data: { type: 'teams', attributes: { name: 'kept-team' } } });
    assert.equal(created.status, 200, created.text);
    // The image has the policy engine, says so at start, and judges a real plan with it. Log lines reach
    // stdout in batches flushed every second (TEAMSTAGE_LOG_BUFFER_BYTES), so the line is waited for, 5 s at most.
    let laterLogs = logs;
    for (const deadline = Date.now() + 5000; !/policy engine ready/.test(laterLogs) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      laterLogs = await podman(['logs', container]);
    }
    assert.match(laterLogs, /policy engine ready/);
    assert.match(laterLogs, /"engine":"OPA 1\.22\.3 \(\/usr\/local\/bin\/opa\)"/);
    await policyEvaluatesInside(client, url, ownerToken, organization);
    await client.close();

    // `podman stop` sends the image's STOPSIGNAL (SIGTERM) and would SIGKILL after 10 s: exit 0 well before.
    const stopping = Date.now();
    await podman(['stop', '--time', '10', container]);
    const stopMs = Date.now() - stopping;
    const exitCode = (await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).trim();
    assert.equal(exitCode, '0', 'a graceful exit, not a SIGKILL (137)');
    // Exit code 0 is the proof (podman would have sent SIGKILL at 10 s: 137); the time is printed, not judged, since
    // it measures the machine (1.3 s quiet, 4 s at a load average of 25, podman's own bookkeeping included).

    await podman(['start', container]);
    await waitReady(url, 60_000);
    client = new HttpClient(url, 2);
    const team = await client.request('GET', `/teams/${created.body.data.id}`, ownerToken);
    assert.equal(team.status, 200, team.text);
    assert.equal(team.body.data.attributes.name, 'kept-team');
    await client.close();
    const logsAfterRestart = await startLog(container, 2);
    assert.equal([...logsAfterRestart.matchAll(SITE_TOKEN_SHOWN)].length, 1, 'the site token is shown once, not again on restart');
    await podman(['stop', '--time', '10', container]);

    console.log(`image ${image}: ${(size / 1024 / 1024).toFixed(0)} MiB; start to ready ${startToReadyMs} ms; SIGTERM to exit ${stopMs} ms`);
  });

  it("runs docs/operations.md's container commands as written: start, token, restart, backup, copy off, restore", { skip: hasPodman ? false : 'podman is not installed' }, async () => {
    assert.ok((await podman(['image', 'exists', image]).then(() => true, () => false)), 'the image the test above built');
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-docs-image-'));
    const docsContainer = `${container}-docs`;
    const docsVolume = `${volume}-docs`;
    const port = await freePort();
    const today = new Date().toISOString().slice(0, 10);
    // The only changes to the text: this test's image, container, volume and loopback port (other tests run
    // beside it), /backups in this test's folder, the example backup's date today's. podman gets the flags
    // the note below the block gives for hosts with hybrid cgroups (scripts/podman-flags.sh), as the test above,
    // and `podman logs` first waits (60 s at most) for the server to answer /readyz, as a person reading the
    // token does: straight after `podman run -d` the server has not started yet, and the log is empty.
    const local = documentedBlock()
      .replaceAll('localhost/teamstage:latest', image)
      .replaceAll('teamstage-data:', `${docsVolume}:`)
      .replaceAll('volume create teamstage-data', `volume create ${docsVolume}`)
      .replace(/(--name |podman (?:logs|stop|start|exec) )teamstage\b/g, `$1${docsContainer}`)
      .replaceAll('teamstage:/data/', `${docsContainer}:/data/`)
      .replaceAll('-p 8080:8080', `-p 127.0.0.1:${port}:8080`)
      .replaceAll('/backups/', `${workDir}/backups/`)
      .replaceAll('2026-11-24', today);
    assert.doesNotMatch(local, /(?<![\w/.-])teamstage(?![\w.-])/, `a name left to change:\n${local}`);
    const flags = [...podmanFlags].join(' ');
    const script = [
      `ready() { for _ in $(seq 300); do curl -sf http://127.0.0.1:${port}/readyz >/dev/null && return 0; sleep 0.2; done; echo 'not ready within 60 s' >&2; return 1; }`,
      // And until the start printed its last line, after the token's (bounded as ready() is).
      // (The log is read whole, not piped to `grep -q`: under pipefail, podman cut off by grep's early exit fails the pipe.)
      `listening() { for _ in $(seq 300); do case "$(command podman ${flags} "$@" 2>&1 || true)" in *'"msg":"Teamstage is listening on '*) return 0 ;; esac; sleep 0.2; done; echo 'no listening line within 60 s' >&2; return 1; }`,
      `podman() { case "$1" in run) shift; command podman ${flags} run ${runLimits.join(' ')} "$@" ;; logs) ready && listening "$@" && command podman ${flags} "$@" ;; *) command podman ${flags} "$@" ;; esac; }`,
      local,
    ].join('\n');
    fs.mkdirSync(path.join(workDir, 'backups'));
    try {
      const output = await run('bash', ['-euo', 'pipefail', '-c', script], 300_000);
      assert.equal([...output.matchAll(SITE_TOKEN_SHOWN)].length, 1, `podman logs shows the site token once:\n${output}`);
      assert.ok(fs.existsSync(path.join(workDir, 'backups', `backup-${today}.sqlite`)), `the backup copied off the volume:\n${output}`);
      assert.match(output, /^restored \/data\/teamstage\.sqlite \(integrity_check ok\)$/m, 'restore says what it restored');
      await waitReady(`http://127.0.0.1:${port}`, 60_000);
    } finally {
      await podman(['rm', '--force', '--time', '0', docsContainer]).catch(() => {});
      await podman(['volume', 'rm', '--force', docsVolume]).catch(() => {});
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });
});
