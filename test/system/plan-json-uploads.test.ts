/**
 * Issue 25, item 1, against a real server process: a crafted 50 MiB plan JSON (nested arrays) must not
 * freeze other tenants nor grow the server's memory. The server spools the upload to disk and checks it in
 * a worker thread with a streaming parser, within bounds of depth and value count (422 beyond them).
 *
 * In one run, another tenant reads its team (`GET /teams/:id`, one request after another) while idle, while
 * the crafted 50 MiB upload is refused, and while a benign ~48 MiB plan is uploaded, stored and read back.
 * The server's resident memory is sampled every 20 ms (/proc VmRSS) through each phase. Prints the figures
 * RELIABILITY.md quotes. Before the fix (JSON.parse of the whole body on the event loop) the crafted upload
 * held every request for about 11 s and peaked near 2.7 GB.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { tarGz } from '../helpers/run-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitUntil } from '../helpers/wait-until.js';

const MiB = 1024 * 1024;
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
/** The targets: another tenant's p99 moves by less than this, and the server's memory by less than this. */
const P99_TARGET_MS = 100;
const RSS_TARGET = 100 * MiB;
const IDLE_PHASE_MS = 3000;

/** VmRSS of a process, in bytes. */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** A benign plan of about `bytes`: the resource changes of a real plan (120_basic, all creates), repeated under new addresses. */
function benignPlan(bytes: number): { body: Buffer; additions: number } {
  const plan = JSON.parse(fs.readFileSync(path.join(FIXTURES, '120_basic', 'plan.json'), 'utf8'));
  const entries: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    for (const change of plan.resource_changes) {
      const entry = JSON.stringify({ ...change, address: `${change.address}_${n}` });
      entries.push(entry);
      size += entry.length + 1;
    }
  }
  const head = JSON.stringify({ ...plan, resource_changes: [] });
  return { body: Buffer.from(head.replace('"resource_changes":[]', `"resource_changes":[${entries.join(',')}]`)), additions: entries.length };
}

/** The attack: arrays nested 100 deep (within the depth bound), over and over, to `bytes`. */
function craftedPlan(bytes: number): Buffer {
  const unit = `${'['.repeat(100)}${']'.repeat(100)},`;
  const head = '{"format_version":"1.2","resource_changes":[';
  const count = Math.floor((bytes - head.length - 4) / unit.length);
  return Buffer.from(`${head}${unit.repeat(count)}[]]}`);
}

describe('plan JSON uploads under attack (real process)', { timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-plan-json-'));
  let server: ServerProcess | undefined;
  let client: HttpClient | undefined;
  after(async () => {
    await client?.close().catch(() => {});
    await server?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a crafted 50 MiB upload is refused (422) and leaves another tenant's p99 and the server's memory within target", async () => {
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_RATE_LIMIT: '0',
    });
    client = new HttpClient(server.url, 4);
    const suffix = randomBytes(3).toString('hex');
    const attacker = await bootstrapOrganization(client, siteToken, `attacker${suffix}`);
    const tenant = await bootstrapOrganization(client, siteToken, `tenant${suffix}`);
    const team = await client.request('POST', `/organizations/${tenant.organization}/teams`, tenant.ownerToken, { data: { type: 'teams', attributes: { name: 'readers' } } });
    assert.equal(team.status, 200, team.text);

    // The attacker's run in agent mode, its plan claimed: what a pipeline does before uploading.
    const call = async (method: string, url: string, body?: unknown) => {
      const response = await client!.request(method, url, attacker.ownerToken, body);
      assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${response.text}`);
      return response.body;
    };
    const workspace = await call('POST', `/organizations/${attacker.organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'pipeline', 'execution-mode': 'agent' } } });
    const version = await call('POST', `/workspaces/${workspace.data.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } });
    const uploaded = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(uploaded.status, 200);
    const run = await call('POST', '/runs', { data: { type: 'runs', attributes: {}, relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } });
    const planId = run.data.relationships.plan.data.id as string;
    await waitUntil(async () => (await call('GET', `/runs/${run.data.id}`)).data.attributes.status === 'plan_queued', 10_000, 'the run did not queue its plan');
    await call('POST', `/plans/${planId}/actions/claim`);

    const put = (body: Buffer) =>
      fetch(`${server!.url}/api/v2/plans/${planId}/json-output`, {
        method: 'PUT',
        body: new Uint8Array(body),
        headers: { authorization: `Bearer ${attacker.ownerToken}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(120_000),
      });

    /** Runs `work` while the other tenant reads its team and the server's memory is sampled. */
    const phase = async <T>(work: () => Promise<T>) => {
      const latencies: number[] = [];
      const baseline = rssOf(server!.pid);
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server!.pid))), 20);
      let done = false;
      const reader = (async () => {
        while (!done) {
          const started = performance.now();
          const shown = await client!.request('GET', `/teams/${team.body.data.id}`, tenant.ownerToken);
          latencies.push(performance.now() - started);
          assert.equal(shown.status, 200, shown.text);
        }
      })();
      try {
        const result = await work();
        return { result, latencies, growth: peak - baseline, baseline };
      } finally {
        done = true;
        await reader;
        clearInterval(sampler);
      }
    };
    const describePhase = (name: string, measured: { latencies: number[]; growth: number; baseline: number }) =>
      `${name}: ${measured.latencies.length} reads, p50 ${percentile(measured.latencies, 50).toFixed(1)} ms, p99 ${percentile(measured.latencies, 99).toFixed(1)} ms, ` +
      `max ${Math.max(...measured.latencies).toFixed(1)} ms; RSS ${(measured.baseline / MiB).toFixed(0)} MiB +${(measured.growth / MiB).toFixed(0)} MiB`;

    // Warm up (the check's worker thread starts on the first upload, and the reads' statements are prepared).
    assert.equal((await put(fs.readFileSync(path.join(FIXTURES, 'numerics', 'plan.json')))).status, 200);
    await phase(() => new Promise((resolve) => setTimeout(resolve, 500)));

    const idle = await phase(() => new Promise((resolve) => setTimeout(resolve, IDLE_PHASE_MS)));
    const craftedBody = craftedPlan(50 * MiB);
    const crafted = await phase(async () => {
      const response = await put(craftedBody);
      return { status: response.status, body: (await response.json()) as { errors: Array<{ detail: string }> } };
    });
    const { body: benignBody, additions } = benignPlan(48 * MiB);
    const benign = await phase(async () => {
      const response = await put(benignBody);
      const text = await response.text();
      const served = await fetch(`${server!.url}/api/v2/plans/${planId}/json-output`, { headers: { authorization: `Bearer ${attacker.ownerToken}` } });
      const bytes = Buffer.from(await served.arrayBuffer());
      return { status: response.status, text, identical: bytes.equals(benignBody) };
    });
    const after = await call('GET', `/plans/${planId}`);

    console.log(
      [
        describePhase('idle', idle),
        describePhase(`crafted ${(craftedBody.length / MiB).toFixed(1)} MiB of nested arrays (${crafted.result.status}: ${crafted.result.body.errors?.[0]?.detail})`, crafted),
        describePhase(`benign ${(benignBody.length / MiB).toFixed(1)} MiB plan uploaded (${benign.result.status}) and read back`, benign),
      ].join('\n'),
    );
    assert.equal(benign.result.status, 200, benign.result.text);
    assert.ok(benign.result.identical, 'the benign plan is served back byte for byte');
    assert.equal(crafted.result.status, 422);
    assert.match(crafted.result.body.errors[0]!.detail, /more values than the limit of 10000000 \(TEAMSTAGE_PLAN_JSON_MAX_VALUES\)/);
    assert.equal(after.data.attributes['resource-additions'], additions, 'the benign plan counted; the refused upload changed nothing');
    const moved = percentile(crafted.latencies, 99) - percentile(idle.latencies, 99);
    assert.ok(moved < P99_TARGET_MS, `the crafted upload moved the other tenant's p99 by ${moved.toFixed(1)} ms`);
    assert.ok(crafted.growth < RSS_TARGET, `the crafted upload grew the server's memory by ${(crafted.growth / MiB).toFixed(0)} MiB`);
  });
});
