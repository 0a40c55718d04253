/**
 * `teamstage pipeline …` as a CI job runs it: the standalone client, bundled the way `npm run build` bundles
 * it (scripts/bundle.mjs; here esbuild bundles the sources directly into .tmp/, so this test never races
 * another test rebuilding dist/), served by a live server process and installed from it with one curl into
 * a directory with no node_modules, then run as a separate process with the plan JSON and log taken from
 * the fixtures the way a pipeline hands them over after `terraform plan` and `terraform show -json`. Its
 * exit codes: 0 proceed, 1 failed, 2 usage/transport, 3 awaiting an override.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { assertSelfContained, pipelineBundleOptions } from '../../scripts/bundle-options.mjs';
import { VERSION } from '../../src/core/version.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { freePort } from '../helpers/postgres-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const HMAC_KEY = `hmac-${randomBytes(8).toString('hex')}`;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The standalone pipeline client bundled as scripts/bundle.mjs does it, from the sources. */
async function bundleClient(outfile: string, version = VERSION): Promise<void> {
  const built = await build(pipelineBundleOptions(path.join(ROOT, 'src/pipeline/pipeline-main.ts'), outfile, version));
  assertSelfContained(built.metafile);
}

/** `curl -fsSo FILE URL`, the README's one-line install; answers how long it took. */
function curlInstall(url: string, file: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) =>
    execFile('curl', ['-fsSo', file, url], { timeout: 30_000 }, (error) => (error ? reject(error) : resolve(performance.now() - started))),
  );
}

describe('teamstage pipeline (a real process, bundled) against a live server', { timeout: 900_000 }, () => {
  const tmpRoot = path.join(ROOT, '.tmp');
  fs.mkdirSync(tmpRoot, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(tmpRoot, 'pipeline-cli-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-pipeline-'));
  const built = path.join(workDir, 'served', 'teamstage-pipeline.mjs');
  // Installed where no node_modules is above it: the client must need nothing but node.
  const installDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-ci-job-'));
  const bundle = path.join(installDir, 'teamstage-pipeline.mjs');
  let server: ServerProcess;
  let http: HttpClient;
  let service: Server;
  let ownerToken: string;
  let organization: string;
  let workspace: string;

  before(async () => {
    await bundleClient(built);
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`,
      TEAMSTAGE_DATA_DIR: dataDir,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_RATE_LIMIT: '0',
      TEAMSTAGE_JOB_POLL: '0.1',
      TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '60',
      TEAMSTAGE_PIPELINE_CLIENT_FILE: built,
    }, { readyTimeoutMs: 120_000 });
    await curlInstall(`${server.url}/pipeline/teamstage-pipeline.mjs`, bundle);
    http = new HttpClient(server.url, 2);
    ({ ownerToken, organization } = await bootstrapOrganization(http, siteToken, `pipe${randomBytes(3).toString('hex')}`));
    // @ts-expect-error: a plain JavaScript example without type declarations
    const { createServer } = await import('../../examples/run-task-service/server.mjs');
    service = createServer({ hmacKey: HMAC_KEY, denyResourceTypes: [], allowDestroy: false, failWorkspacePattern: '', verdictDelayMs: 0, quiet: true });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const task = await http.request('POST', `/organizations/${organization}/tasks`, ownerToken, {
      data: { type: 'tasks', attributes: { name: 'plan-guard', url: `http://127.0.0.1:${(service.address() as AddressInfo).port}/`, category: 'task', 'hmac-key': HMAC_KEY } },
    });
    assert.equal(task.status, 201, task.text);
    workspace = 'network';
    const created = await http.request('POST', `/organizations/${organization}/workspaces`, ownerToken, {
      data: { type: 'workspaces', attributes: { name: workspace, 'execution-mode': 'agent' } },
    });
    assert.equal(created.status, 201, created.text);
    const attached = await http.request('POST', `/workspaces/${created.body.data.id}/tasks`, ownerToken, {
      data: {
        type: 'workspace-tasks',
        attributes: { 'enforcement-level': 'mandatory', stages: ['post_plan'] },
        relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } },
      },
    });
    assert.equal(attached.status, 201, attached.text);
    fs.writeFileSync(path.join(workDir, 'plan.log'), 'Plan: 1 to add, 0 to change, 1 to destroy.\n');
    fs.writeFileSync(path.join(workDir, 'apply.log'), 'Apply complete! Resources: 1 added, 0 changed, 1 destroyed.\n');
  });

  after(async () => {
    if (service) {
      service.closeAllConnections();
      await new Promise((resolve) => service.close(resolve));
    }
    await http?.close();
    await server?.kill('SIGTERM');
    fs.rmSync(workDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(installDir, { recursive: true, force: true });
  });

  function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(childEnv)) if (key.startsWith('TEAMSTAGE_')) delete childEnv[key];
    Object.assign(childEnv, { TEAMSTAGE_ADDRESS: server.url, TEAMSTAGE_TOKEN: ownerToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' }, env);
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete childEnv[key];
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bundle, ...args], { cwd: workDir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout: stdout.trim(), stderr });
      });
    });
  }

  const waiting = ['--poll-interval', '0.1', '--timeout', '60'];

  it('the client is one self-contained file the server serves: one curl installs it, and it runs with a bare node', async () => {
    const again = path.join(installDir, 'again.mjs');
    const ms = await curlInstall(`${server.url}/pipeline/teamstage-pipeline.mjs`, again);
    // Its time is this machine's, so it is said, not judged: the bench's gated-pipeline row measures what the
    // client adds to a job.
    console.log(`# curl installed the client in ${Math.round(ms)} ms`);
    assert.deepEqual(fs.readFileSync(again), fs.readFileSync(built), 'byte for byte what the build wrote');
    const text = fs.readFileSync(bundle, 'utf8');
    assert.ok(text.startsWith('#!/usr/bin/env node'));
    for (const server of ['better-sqlite3', 'fastify', 'kysely', 'pg-pool']) assert.ok(!text.includes(`from "${server}"`) && !text.includes(`require("${server}")`), `imports ${server}`);
    const help = await cli(['help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stderr, /Usage: teamstage pipeline <command>/);
    // Scripts written for the `teamstage` command pass `pipeline` first: the same file takes it.
    assert.equal((await cli(['pipeline', 'help'])).code, 0);
  });

  it('a client of another version is refused at its first request with where to fetch the matching one (exit 2)', async () => {
    const old = path.join(installDir, 'old.mjs');
    await bundleClient(old, '0.0.0-old');
    const result = await new Promise<CliResult>((resolve, reject) => {
      execFile(process.execPath, [old, 'wait', '--run', 'run-x'], { env: { ...process.env, TEAMSTAGE_ADDRESS: server.url, TEAMSTAGE_TOKEN: ownerToken }, timeout: 60_000 }, (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      });
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`client is version 0\\.0\\.0-old and the server ${VERSION.replace(/\./g, '\\.')}: fetch the client again \\(curl -fsSo teamstage-pipeline\\.mjs ${server.url}/pipeline/teamstage-pipeline\\.mjs\\)`));
  });

  it('exit 2: usage mistakes, a missing token, an unreachable server, a refused token', async () => {
    assert.equal((await cli([])).code, 2);
    const unknown = await cli(['deploy']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "deploy"/);
    const noRun = await cli(['plan-finish', '--plan-json', 'plan.json']);
    assert.equal(noRun.code, 2);
    assert.match(noRun.stderr, /needs --run/);
    assert.equal((await cli(['wait', '--run', 'run-x', '--bogus'])).code, 2);
    assert.equal((await cli(['apply-start', '--run', 'run-x', '--plan-json', 'x'])).code, 2, 'an option of another command');
    const noToken = await cli(['wait', '--run', 'run-x'], { TEAMSTAGE_TOKEN: undefined });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /TEAMSTAGE_TOKEN is not set/);
    const closedPort = await freePort();
    const unreachable = await cli(['wait', '--run', 'run-x'], { TEAMSTAGE_ADDRESS: `http://127.0.0.1:${closedPort}`, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0' });
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /ECONNREFUSED/);
    const refused = await cli(['plan-start', '--organization', organization, '--workspace', workspace], { TEAMSTAGE_TOKEN: 'not-a-token' });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /HTTP 401/);
    const help = await cli(['help']);
    assert.equal(help.code, 0);
    assert.match(help.stderr, /Exit codes: 0 the run may proceed/);
  });

  it('the whole flow: plan-start → plan-finish exits 3 on a replace → override → wait 0 → apply-start 0 → apply-finish 0 (applied)', async () => {
    // The configuration directory as a pipeline's checkout has it after `terraform init` and a local run.
    const configDir = path.join(workDir, 'config');
    fs.cpSync(path.join(FIXTURES, '120_basic'), configDir, { recursive: true });
    fs.mkdirSync(path.join(configDir, '.terraform/providers'), { recursive: true });
    fs.writeFileSync(path.join(configDir, '.terraform/providers/big-binary'), randomBytes(64 * 1024));
    fs.writeFileSync(path.join(configDir, 'terraform.tfstate'), '{"secret":"state"}');

    const started = await cli(['plan-start', '--organization', organization, '--workspace', workspace, '--config-dir', configDir, '--message', 'CI build 7', ...waiting]);
    assert.equal(started.code, 0, started.stderr);
    const runId = started.stdout;
    assert.match(runId, /^run-\w+$/, 'stdout is the run id alone, for RUN=$(teamstage pipeline plan-start …)');
    const uploadedBytes = Number(/uploaded \((\d+) bytes/.exec(started.stderr)?.[1]);
    assert.ok(uploadedBytes > 0 && uploadedBytes < 16 * 1024, `the .terraform directory and state were left out (${uploadedBytes} bytes)`);
    const run = await http.request('GET', `/runs/${runId}`, ownerToken);
    assert.equal(run.body.data.attributes.status, 'planning');
    assert.equal(run.body.data.attributes.message, 'CI build 7');

    const planned = await cli(['plan-finish', '--run', runId, '--plan-json', path.join(FIXTURES, 'action_reason/plan.json'), '--log', 'plan.log', ...waiting]);
    assert.equal(planned.code, 3, planned.stderr);
    assert.equal(planned.stdout, 'post_plan_awaiting_decision');
    assert.match(planned.stderr, /post_plan stage: awaiting_override/);
    assert.match(planned.stderr, /PLAN-001: null_resource\.example will be replaced/);

    const stages = await http.request('GET', `/runs/${runId}/task-stages`, ownerToken);
    const stageId = stages.body.data[0].id;
    const overridden = await http.request('POST', `/task-stages/${stageId}/actions/override`, ownerToken, { comment: 'intended' });
    assert.equal(overridden.status, 200, overridden.text);

    const resumed = await cli(['wait', '--run', runId, ...waiting]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, 'post_plan_completed');
    const applying = await cli(['apply-start', '--run', runId, ...waiting]);
    assert.equal(applying.code, 0, applying.stderr);
    const applied = await cli(['apply-finish', '--run', runId, '--log', 'apply.log', ...waiting]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout, 'applied');
    assert.equal((await http.request('GET', `/runs/${runId}`, ownerToken)).body.data.attributes.status, 'applied');
  });

  /**
   * A stand-in for terraform (there is none here that may download providers): it answers init, plan, show
   * and apply as terraform does, `show -json` with a real plan from the fixtures ($FAKE_PLAN_JSON), and
   * records every call in $FAKE_TF_CALLS, so a test can prove that `apply` never ran.
   */
  function standInTerraform(dir: string, name: string): string {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      [
        '#!/usr/bin/env bash',
        'args=("$@"); [[ "${args[0]}" == -chdir=* ]] && args=("${args[@]:1}")',
        'echo "${args[0]}" >> "$FAKE_TF_CALLS"',
        'case "${args[0]}" in',
        '  init) echo "Terraform has been successfully initialized!" ;;',
        '  plan) for a in "${args[@]}"; do [[ $a == -out=* ]] && echo binary-plan > "${a#-out=}"; done; echo "Plan: 1 to add, 0 to change, 1 to destroy." ;;',
        '  show) cat "$FAKE_PLAN_JSON" ;;',
        '  apply) [ -f "${args[-1]}" ] || exit 1; echo "Apply complete! Resources: 1 added, 0 changed, 1 destroyed." ;;',
        '  *) exit 1 ;;',
        'esac',
      ].join('\n'),
      { mode: 0o755 },
    );
    return file;
  }

  /** A shell script as a CI job runs it: bash, the job's environment, bounded in time. */
  function runScript(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult> {
    return new Promise<CliResult>((resolve, reject) => {
      const child = spawn('bash', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** The job's environment: only what a CI job would have, plus the stand-in's knobs. */
  function jobEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE_') || key.startsWith('TF_')) delete env[key];
    return { ...env, TEAMSTAGE_ADDRESS: server.url, TEAMSTAGE_TOKEN: ownerToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1', ...extra };
  }

  const calls = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : []);

  async function overridePostPlan(runId: string): Promise<void> {
    const stages = await http.request('GET', `/runs/${runId}/task-stages`, ownerToken);
    const overridden = await http.request('POST', `/task-stages/${stages.body.data[0].id}/actions/override`, ownerToken, { comment: 'intended' });
    assert.equal(overridden.status, 200, overridden.text);
  }

  it("docs/pipeline.md's pipeline snippet, as written: a failed mandatory task stops it before the apply (exit 3); a safe plan applies", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'docs/pipeline.md'), 'utf8');
    const snippet = /<!-- pipeline-snippet[^\n]*-->\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1];
    assert.ok(snippet, 'docs/pipeline.md marks its pipeline snippet');
    assert.match(snippet, /^set -euo pipefail/);
    // The snippet names organization acme and workspace network: made here as the README's steps make them.
    const acme = await http.request('POST', '/organizations', ownerToken, { data: { type: 'organizations', attributes: { name: 'acme', email: 'ops@acme.example' } } });
    assert.equal(acme.status, 201, acme.text);
    // Steps 1 and 2: an agent pool and its token, and the workspace naming the pool; the snippet runs with that token.
    const pool = await http.request('POST', '/organizations/acme/agent-pools', ownerToken, { data: { type: 'agent-pools', attributes: { name: 'network-ci' } } });
    assert.equal(pool.status, 201, pool.text);
    const issued = await http.request('POST', `/agent-pools/${pool.body.data.id}/authentication-tokens`, ownerToken, {
      data: { type: 'authentication-tokens', attributes: { description: 'network pipeline' } },
    });
    assert.equal(issued.status, 201, issued.text);
    const network = await http.request('POST', '/organizations/acme/workspaces', ownerToken, {
      data: { type: 'workspaces', attributes: { name: 'network', 'execution-mode': 'agent', 'agent-pool-id': pool.body.data.id } },
    });
    assert.equal(network.status, 201, network.text);
    const task = await http.request('POST', '/organizations/acme/tasks', ownerToken, {
      data: { type: 'tasks', attributes: { name: 'plan-guard', url: `http://127.0.0.1:${(service.address() as AddressInfo).port}/`, category: 'task', 'hmac-key': HMAC_KEY } },
    });
    assert.equal(task.status, 201, task.text);
    const attached = await http.request('POST', `/workspaces/${network.body.data.id}/tasks`, ownerToken, {
      data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory', stages: ['post_plan'] }, relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } } },
    });
    assert.equal(attached.status, 201, attached.text);

    const job = async (planFixture: string) => {
      const checkout = fs.mkdtempSync(path.join(workDir, 'checkout-'));
      fs.cpSync(path.join(FIXTURES, '120_basic'), checkout, { recursive: true });
      const bin = path.join(checkout, '.bin');
      standInTerraform(bin, 'terraform');
      fs.writeFileSync(path.join(checkout, 'snippet.sh'), snippet);
      const callLog = path.join(workDir, `${path.basename(checkout)}-calls`);
      const env = jobEnv({
        PATH: `${bin}:${process.env.PATH}`, FAKE_PLAN_JSON: path.join(FIXTURES, planFixture, 'plan.json'), FAKE_TF_CALLS: callLog,
        TEAMSTAGE_TOKEN: issued.body.data.attributes.token,
      });
      const before = fs.readdirSync(checkout, { recursive: true }).sort();
      const result = await runScript(['snippet.sh'], env, checkout);
      // The saved plan, plan JSON, logs and client went elsewhere: the next run's configuration is the checkout.
      assert.deepEqual(fs.readdirSync(checkout, { recursive: true }).sort(), before, 'the snippet writes nothing into the directory it packs');
      const runId = /run (run-\w+) created/.exec(result.stderr)?.[1];
      return { result, runId, calls: calls(callLog) };
    };

    const replace = await job('action_reason');
    assert.equal(replace.result.code, 3, `${replace.result.stdout}\n${replace.result.stderr}`);
    assert.match(replace.result.stderr, /PLAN-001: null_resource\.example will be replaced/);
    assert.deepEqual(replace.calls, ['init', 'plan', 'show'], 'terraform apply never ran');
    assert.ok(replace.runId);
    assert.equal((await http.request('GET', `/runs/${replace.runId}`, ownerToken)).body.data.attributes.status, 'post_plan_awaiting_decision');
    // The person says no; the workspace is free for the next run.
    const discarded = await http.request('POST', `/runs/${replace.runId}/actions/discard`, ownerToken, { comment: 'not today' });
    assert.equal(discarded.status, 202, discarded.text);

    const safe = await job('120_basic');
    assert.equal(safe.result.code, 0, `${safe.result.stdout}\n${safe.result.stderr}`);
    assert.deepEqual(safe.calls, ['init', 'plan', 'show', 'apply']);
    assert.match(safe.result.stdout, /Apply complete!/);
    assert.equal((await http.request('GET', `/runs/${safe.runId}`, ownerToken)).body.data.attributes.status, 'applied');
  });

  it('examples/pipeline/gate.sh, as written (tofu by TF_BIN, the client fetched from the server): exit 3 and no apply on a failed mandatory task; after the override `gate.sh resume` runs init and applies', async () => {
    const tofu = standInTerraform(path.join(workDir, 'tofu-bin'), 'tofu');
    const out = path.join(workDir, 'gate-out');
    const callLog = path.join(workDir, 'gate-calls');
    const env = jobEnv({
      TEAMSTAGE_ORGANIZATION: organization,
      TEAMSTAGE_WORKSPACE: workspace,
      TF_BIN: tofu,
      TF_DIR: path.join(FIXTURES, '120_basic'),
      TEAMSTAGE_OUT: out,
      FAKE_PLAN_JSON: path.join(FIXTURES, 'action_reason/plan.json'),
      FAKE_TF_CALLS: callLog,
    });
    const gate = (args: string[]) => runScript([path.join(ROOT, 'examples/pipeline/gate.sh'), ...args], env, workDir);
    const first = await gate([]);
    assert.equal(first.code, 3, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stderr, /PLAN-001: null_resource\.example will be replaced/);
    assert.deepEqual(calls(callLog), ['init', 'plan', 'show'], 'no apply while the stage awaits a decision');
    assert.ok(fs.existsSync(path.join(out, 'teamstage-pipeline.mjs')), 'gate.sh fetched the client from the server');
    const runId = /then run: gate\.sh resume (run-\w+)/.exec(first.stderr)?.[1];
    assert.ok(runId, first.stderr);
    assert.ok(fs.existsSync(path.join(out, 'plan.tfplan')), 'the saved plan stays for the resume');
    assert.equal(fs.readFileSync(path.join(out, 'run-id'), 'utf8').trim(), runId, 'saved for `gate.sh resume`');

    // Resuming before anyone decided changes nothing: still exit 3, still no apply.
    const early = await gate(['resume']);
    assert.equal(early.code, 3, `${early.stdout}\n${early.stderr}`);
    assert.ok(!calls(callLog).includes('apply'));

    await overridePostPlan(runId);
    fs.rmSync(callLog);
    const resumed = await gate(['resume']);
    assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
    assert.deepEqual(calls(callLog), ['init', 'apply'], 'a fresh job: init before applying the saved plan');
    assert.match(resumed.stdout, /Apply complete!/);
    assert.equal((await http.request('GET', `/runs/${runId}`, ownerToken)).body.data.attributes.status, 'applied');
  });

  it('gate.sh plan, then gate.sh resume in another job: the two-job form of the CI files', async () => {
    const out = path.join(workDir, 'two-jobs');
    const callLog = path.join(workDir, 'two-jobs-calls');
    const env = jobEnv({
      TEAMSTAGE_ORGANIZATION: organization,
      TEAMSTAGE_WORKSPACE: workspace,
      TF_BIN: standInTerraform(path.join(workDir, 'tf-bin'), 'terraform'),
      TF_DIR: path.join(FIXTURES, '120_basic'),
      TEAMSTAGE_OUT: out,
      TEAMSTAGE: `${process.execPath} ${bundle}`,
      FAKE_PLAN_JSON: path.join(FIXTURES, '120_basic/plan.json'),
      FAKE_TF_CALLS: callLog,
    });
    const gate = (args: string[]) => runScript([path.join(ROOT, 'examples/pipeline/gate.sh'), ...args], env, workDir);
    const planned = await gate(['plan']);
    assert.equal(planned.code, 0, `${planned.stdout}\n${planned.stderr}`);
    assert.match(planned.stdout, /the plan may be applied/);
    assert.deepEqual(calls(callLog), ['init', 'plan', 'show']);
    const runId = fs.readFileSync(path.join(out, 'run-id'), 'utf8').trim();
    const applied = await gate(['resume']);
    assert.equal(applied.code, 0, `${applied.stdout}\n${applied.stderr}`);
    assert.deepEqual(calls(callLog), ['init', 'plan', 'show', 'init', 'apply']);
    assert.equal((await http.request('GET', `/runs/${runId}`, ownerToken)).body.data.attributes.status, 'applied');
    assert.equal((await gate(['bogus'])).code, 2, 'an unknown mode is a usage error');
    const config = fs.mkdtempSync(path.join(workDir, 'config-'));
    const inside = await runScript([path.join(ROOT, 'examples/pipeline/gate.sh'), 'plan'], { ...env, TF_DIR: config, TEAMSTAGE_OUT: path.join(config, '.gate') }, workDir);
    assert.equal(inside.code, 2, `${inside.stdout}\n${inside.stderr}`);
    assert.match(inside.stderr, /TEAMSTAGE_OUT .* is inside TF_DIR/);
  });

  // Helper `clients` builds OpenTofu from source for CI (docs/real-clients.md, "Real clients"); where it is built, gate.sh runs it for real.
  const realTofu = path.join(process.env.TEAMSTAGE_REALCLIENTS_DIR ?? path.join(os.homedir(), '.cache/teamstage-realclients'), 'bin/tofu');
  it('gate.sh with real OpenTofu (when built): a safe plan applies; a replace stops before the apply until the override, then resume applies it', { skip: !fs.existsSync(realTofu) && `no ${realTofu}` }, async () => {
    const config = path.join(workDir, 'tofu-config');
    fs.mkdirSync(config);
    // The README's sample configuration, with its `release` default set as a job would set TF_VAR_release.
    const sample = fs.readFileSync(path.join(ROOT, 'examples/pipeline/sample/main.tf'), 'utf8');
    assert.match(sample, /default = "one"/);
    const write = (release: string) => fs.writeFileSync(path.join(config, 'main.tf'), sample.replace('default = "one"', `default = "${release}"`));
    write('one');
    const out = path.join(workDir, 'tofu-out');
    const env = jobEnv({ TEAMSTAGE_ORGANIZATION: organization, TEAMSTAGE_WORKSPACE: workspace, TF_BIN: realTofu, TF_DIR: config, TEAMSTAGE_OUT: out, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' });
    const gate = (args: string[]) => runScript([path.join(ROOT, 'examples/pipeline/gate.sh'), ...args], env, workDir);
    const state = () => JSON.parse(fs.readFileSync(path.join(config, 'terraform.tfstate'), 'utf8'));

    const created = await gate([]);
    assert.equal(created.code, 0, `${created.stdout}\n${created.stderr}`);
    assert.match(created.stdout, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    assert.match(created.stderr, /apply: 1 added, 0 changed, 0 destroyed/);
    const first = state().resources[0].instances[0].attributes.id;

    write('two');
    const replaced = await gate([]);
    assert.equal(replaced.code, 3, `${replaced.stdout}\n${replaced.stderr}`);
    assert.match(replaced.stderr, /terraform_data\.example will be replaced/);
    assert.equal(state().resources[0].instances[0].attributes.id, first, 'tofu apply never ran: the state is unchanged');
    const runId = fs.readFileSync(path.join(out, 'run-id'), 'utf8').trim();
    // The plan Teamstage holds is tofu's own, byte for byte.
    const run = await http.request('GET', `/runs/${runId}`, ownerToken);
    const held = await fetch(`${server.url}/api/v2/plans/${run.body.data.relationships.plan.data.id}/json-output`, { headers: { authorization: `Bearer ${ownerToken}` } });
    assert.deepEqual(Buffer.from(await held.arrayBuffer()), fs.readFileSync(path.join(out, 'plan.json')));

    await overridePostPlan(runId);
    const resumed = await gate(['resume']);
    assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
    assert.notEqual(state().resources[0].instances[0].attributes.id, first, 'the saved plan was applied: the resource was replaced');
    assert.equal((await http.request('GET', `/runs/${runId}`, ownerToken)).body.data.attributes.status, 'applied');
  });

  it("gate.sh with real OpenTofu and an agent token (issue 36): it applies its pool's workspace, and finds no other workspace", { skip: !fs.existsSync(realTofu) && `no ${realTofu}` }, async () => {
    const pool = await http.request('POST', `/organizations/${organization}/agent-pools`, ownerToken, { data: { type: 'agent-pools', attributes: { name: 'ci-pool' } } });
    assert.equal(pool.status, 201, pool.text);
    const pooled = await http.request('POST', `/organizations/${organization}/workspaces`, ownerToken, {
      data: { type: 'workspaces', attributes: { name: 'pooled', 'execution-mode': 'agent', 'agent-pool-id': pool.body.data.id } },
    });
    assert.equal(pooled.status, 201, pooled.text);
    const token = await http.request('POST', `/agent-pools/${pool.body.data.id}/authentication-tokens`, ownerToken, { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } });
    assert.equal(token.status, 201, token.text);
    const agentToken = token.body.data.attributes.token as string;
    const config = path.join(workDir, 'agent-config');
    fs.mkdirSync(config);
    fs.writeFileSync(path.join(config, 'main.tf'), 'resource "terraform_data" "example" {\n  input = "by the agent"\n}\n');
    const gate = (workspaceName: string, out: string) =>
      runScript([path.join(ROOT, 'examples/pipeline/gate.sh')], jobEnv({
        TEAMSTAGE_TOKEN: agentToken, TEAMSTAGE_ORGANIZATION: organization, TEAMSTAGE_WORKSPACE: workspaceName, TF_BIN: realTofu, TF_DIR: config,
        TEAMSTAGE_OUT: path.join(workDir, out), CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1',
      }), workDir);

    const applied = await gate('pooled', 'agent-out');
    assert.equal(applied.code, 0, `${applied.stdout}\n${applied.stderr}`);
    assert.match(applied.stdout, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    const runId = fs.readFileSync(path.join(workDir, 'agent-out', 'run-id'), 'utf8').trim();
    assert.equal((await http.request('GET', `/runs/${runId}`, ownerToken)).body.data.attributes.status, 'applied');
    const resource = JSON.parse(fs.readFileSync(path.join(config, 'terraform.tfstate'), 'utf8')).resources[0];
    assert.equal(resource.type, 'terraform_data', 'tofu applied the plan Teamstage let through');
    assert.match(JSON.stringify(resource.instances[0].attributes), /by the agent/);

    // Another workspace of the organization is not there for it; nothing is planned against it.
    const refused = await gate(workspace, 'agent-other-out');
    assert.notEqual(refused.code, 0, `${refused.stdout}\n${refused.stderr}`);
    assert.match(refused.stderr, /: HTTP 404 not found: workspace not found$/m);
    assert.ok(!fs.existsSync(path.join(workDir, 'agent-other-out', 'run-id')), 'no run was created in Teamstage');
  });

  it('exit 0 with planned_and_finished for a plan without changes; exit 1 when the plan errored', async () => {
    const configDir = path.join(FIXTURES, 'no_changes');
    const first = await cli(['plan-start', '--organization', organization, '--workspace', workspace, '--config-dir', configDir, ...waiting]);
    assert.equal(first.code, 0, first.stderr);
    const unchanged = await cli(['plan-finish', '--run', first.stdout, '--plan-json', path.join(FIXTURES, 'no_changes/plan.json'), ...waiting]);
    assert.equal(unchanged.code, 0, unchanged.stderr);
    assert.equal(unchanged.stdout, 'planned_and_finished');

    const second = await cli(['plan-start', '--organization', organization, '--workspace', workspace, '--config-dir', configDir, ...waiting]);
    assert.equal(second.code, 0, second.stderr);
    const failed = await cli(['plan-finish', '--run', second.stdout, '--error', 'terraform plan exited 1', '--log', 'plan.log', ...waiting]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(failed.stdout, 'errored');
    // A second report of another kind is refused by the server: the CLI says so and exits 1, the run failed.
    const late = await cli(['plan-finish', '--run', second.stdout, '--plan-json', path.join(FIXTURES, 'no_changes/plan.json'), ...waiting]);
    assert.equal(late.code, 1, late.stderr);
  });
});
