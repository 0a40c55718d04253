import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { HttpClient } from '../test/helpers/http-client.js';
import { MockTaskService, type RecordedTaskRequest } from '../test/helpers/mock-task-service.js';
import { tarGz } from '../test/helpers/run-fixtures.js';
import { median, percentiles } from './measure.js';
import { fmt } from './row-text.js';
import { startBackgroundLoad } from './mixed-load.js';
import { extraScenarios, type ScenarioContext } from './scenarios.js';

const HMAC_KEY = `bench-${randomBytes(8).toString('hex')}`;

/** A workspace with two run tasks (mandatory and advisory) at post_plan, on the given organization. */
async function gatedWorkspace(client: HttpClient, token: string, organization: string, taskUrl: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await client.request(method, path, token, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const suffix = randomBytes(3).toString('hex');
  const workspace = await call('POST', `/organizations/${organization}/workspaces`, { data: { type: 'workspaces', attributes: { name: `bench-${suffix}` } } });
  const version = await call('POST', `/workspaces/${workspace.data.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } });
  const upload = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' } });
  if (upload.status !== 200) throw new Error(`upload: ${upload.status}`);
  for (const level of ['mandatory', 'advisory']) {
    const task = await call('POST', `/organizations/${organization}/tasks`, {
      data: { type: 'tasks', attributes: { name: `${level}-${suffix}`, url: taskUrl, category: 'task', 'hmac-key': HMAC_KEY } },
    });
    await call('POST', `/workspaces/${workspace.data.id}/tasks`, {
      data: { type: 'workspace-tasks', attributes: { 'enforcement-level': level, stages: ['post_plan'] }, relationships: { task: { data: { type: 'tasks', id: task.data.id } } } },
    });
  }
  // Plan-only: the runs of one workspace run one at a time unless speculative, and these measure the post-plan fan-out.
  const createRun = async () =>
    (await call('POST', '/runs', { data: { type: 'runs', attributes: { message: 'bench', 'plan-only': true }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } })).data.id as string;
  return { call, createRun };
}

/**
 * A task service that answers 200 and calls back `passed` at once, remembering when each callback was
 * sent (`callbackDone`: when it left, not when it was queued) and counting the answered ones.
 */
async function answeringService(serverUrl: string, onRequest: (runId: string) => void = () => {}) {
  const callbackDone = new Map<string, number>();
  const answered = { count: 0 };
  // Like a real service: callbacks go out over a pool of 32 keep-alive connections. Unbounded
  // concurrency would only measure the kernel dropping SYNs once the listen backlog is full.
  const pool = new Pool(serverUrl, { connections: 32 });
  // Open the 32 connections before measuring, as a running integration would have them. Otherwise the
  // first callbacks also measure TCP setup against a server that is busy creating runs (100–350 ms).
  await Promise.all(Array.from({ length: 32 }, async () => (await pool.request({ method: 'GET', path: '/healthz' })).body.text()));
  let active = 0;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (active >= 32) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
  };
  const release = () => {
    active -= 1;
    waiting.shift()?.();
  };
  const service = await MockTaskService.start({
    hmacKey: HMAC_KEY,
    respond: (request: RecordedTaskRequest) => {
      const payload = request.json;
      if (payload?.run_id) onRequest(payload.run_id);
      if (payload && payload.stage !== 'test') {
        setImmediate(async () => {
          await slot();
          try {
            callbackDone.set(payload.task_result_id, Date.now());
            const response = await pool.request({
              method: 'PATCH',
              path: new URL(payload.task_result_callback_url).pathname,
              headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
              body: JSON.stringify({ data: { type: 'task-results', attributes: { status: 'passed', message: 'ok' } } }),
            });
            await response.body.text();
            if (response.statusCode === 200) answered.count += 1;
          } catch {
            // Not answered: a round counts answered callbacks and fails at its deadline when one is missing. A
            // delivery still arriving as the scenario stops the server (ECONNREFUSED) is no reason to crash the run.
          } finally {
            release();
          }
        });
      }
      return { status: 200 };
    },
  });
  return { service, callbackDone, answered, close: async () => { await service.close(); await pool.close(); } };
}

/** One round of the fan-out: its throughput, its latencies, and the CPU each process spent per result. */
interface FanOutRound {
  resultsPerSecond: number;
  p50: number;
  p99: number;
  serverCpu: number;
  databaseCpu?: number;
  loadCpu: number;
}

/**
 * Run-task fan-out: N runs × 2 tasks, the service answering and calling back at once. Throughput is
 * results made final per second from the first run created to the last stage final; latency is the
 * time from the moment a stage's last callback was sent to the stage's recorded final timestamp.
 * Measured `rounds` times on the same server and workspace, each figure the median of the rounds, like
 * every other row: the first round also pays for V8 optimizing the run task code (about a quarter of
 * the server's CPU in a cold round on PostgreSQL), which a server that has been up for a while has done.
 */
async function fanOut(context: ScenarioContext): Promise<void> {
  const runs = context.settings.rounds === 1 ? 50 : 1000;
  const service = await answeringService(context.server.url);
  const client = new HttpClient(context.server.url, 50);
  try {
    const { call, createRun } = await gatedWorkspace(client, context.seeded.ownerToken, context.seeded.organization, service.service.url);
    const rounds: FanOutRound[] = [];
    for (let round = 0; round < context.settings.rounds; round++) rounds.push(await fanOutRound(context, runs, service, call, createRun));
    const mid = (pick: (round: FanOutRound) => number) => median(rounds.map(pick));
    const resultsPerSecond = mid((round) => round.resultsPerSecond);
    const p99 = mid((round) => round.p99);
    const databaseCpu = context.databaseCpuMs ? `, PostgreSQL ${fmt(mid((round) => round.databaseCpu!), 2)} ms` : '';
    const eachRound = rounds.length > 1 ? ` (rounds: ${rounds.map((round) => fmt(round.resultsPerSecond)).join(', ')} results/s)` : '';
    // SQLite's row also judges the callback → stage final latency (issue 18); the floors are issue 39's.
    const latencyTarget = context.dialect.startsWith('sqlite');
    const floor = latencyTarget ? 400 : 300;
    context.rows.push({
      scenario: `run-task fan-out: ${fmt(runs)} runs × 2 tasks`,
      dialect: context.dialect,
      measured: `${fmt(resultsPerSecond)} results/s${eachRound}; last callback → stage final p50 ${mid((round) => round.p50)} ms, p99 ${p99} ms; CPU per result: server ${fmt(mid((round) => round.serverCpu), 2)} ms${databaseCpu}, load generator ${fmt(mid((round) => round.loadCpu), 2)} ms`,
      baseline: '-',
      ratio: '-',
      // Issue 39: back above round 10's figures (378 SQLite, 304 PostgreSQL).
      target: latencyTarget ? `≥ ${floor} results/s; p99 ≤ 100 ms` : `≥ ${floor} results/s`,
      met: resultsPerSecond >= floor && (!latencyTarget || p99 <= 100),
    });
    if (process.env.TEAMSTAGE_SLOW_QUERY_MS) printSlowQueries(context.server.output());
  } finally {
    await client.close();
    await service.close();
  }
}

/** One round: `runs` new runs on the gated workspace, from the first POST /runs to the last stage final. */
async function fanOutRound(
  context: ScenarioContext,
  runs: number,
  { callbackDone, answered }: Awaited<ReturnType<typeof answeringService>>,
  call: (method: string, path: string, body?: unknown) => Promise<any>,
  createRun: () => Promise<string>,
): Promise<FanOutRound> {
  const answeredBefore = answered.count;
  const started = Date.now();
  const cpuBefore = context.server.cpuMs();
  const databaseCpuBefore = context.databaseCpuMs?.();
  const loadCpuBefore = process.cpuUsage();
  const runIds: string[] = [];
  for (let batch = 0; batch < runs; batch += 50) {
    runIds.push(...(await Promise.all(Array.from({ length: Math.min(50, runs - batch) }, () => createRun()))));
  }
  // A stage settles in the transaction of its last callback, so once every callback was answered
  // every stage is final. Waiting on the service's count keeps the measurement from loading the server.
  const deadline = Date.now() + 600_000;
  while (answered.count - answeredBefore < runs * 2) {
    if (Date.now() > deadline) throw new Error(`fan-out: only ${answered.count - answeredBefore} of ${runs * 2} callbacks answered`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const serverCpu = (context.server.cpuMs() - cpuBefore) / (runs * 2);
  const loadCpuUsed = process.cpuUsage(loadCpuBefore);
  const loadCpu = (loadCpuUsed.user + loadCpuUsed.system) / 1000 / (runs * 2);
  const databaseCpu = databaseCpuBefore === undefined ? undefined : (context.databaseCpuMs!() - databaseCpuBefore) / (runs * 2);
  const stageFinal = new Map<string, { stage: any; results: string[] }>();
  for (let batch = 0; batch < runIds.length; batch += 50) {
    await Promise.all(
      runIds.slice(batch, batch + 50).map(async (runId) => {
        const stages = await call('GET', `/runs/${runId}/task-stages`);
        const stage = stages.data[0];
        if (stage?.attributes.status !== 'passed') throw new Error(`run ${runId}: stage ${stage?.attributes.status}, expected passed`);
        stageFinal.set(runId, { stage, results: stage.relationships['task-results'].data.map((r: any) => r.id) });
      }),
    );
  }
  const finals = [...stageFinal.values()].map((entry) => Date.parse(entry.stage.attributes['status-timestamps']['passed-at']));
  const elapsedSeconds = (Math.max(...finals) - started) / 1000;
  const lags = [...stageFinal.values()].map((entry) => {
    const lastCallback = Math.max(...entry.results.map((id) => callbackDone.get(id) ?? 0));
    return Date.parse(entry.stage.attributes['status-timestamps']['passed-at']) - lastCallback;
  });
  lags.sort((a, b) => a - b);
  return {
    resultsPerSecond: (runs * 2) / elapsedSeconds,
    p50: median(lags),
    p99: lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))]!,
    serverCpu,
    databaseCpu,
    loadCpu,
  };
}

/** With TEAMSTAGE_SLOW_QUERY_MS set, the server logs slow queries; this sums them by SQL text. */
function printSlowQueries(output: string): void {
  const totals = new Map<string, { count: number; ms: number }>();
  for (const line of output.split('\n')) {
    if (!line.includes('"slow query"')) continue;
    const entry = JSON.parse(line) as { sql: string; durationMs: number };
    const total = totals.get(entry.sql) ?? { count: 0, ms: 0 };
    total.count += 1;
    total.ms += entry.durationMs;
    totals.set(entry.sql, total);
  }
  const statements = [...totals.values()].reduce((sum, total) => sum + total.count, 0);
  console.error(`[slow] ${statements} statements logged in all`);
  for (const [sql, total] of [...totals].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40)) {
    console.error(`[slow] ${Math.round(total.ms)} ms in ${total.count} × ${sql.slice(0, 160)}`);
  }
}

/**
 * Gate latency, what a person waiting on a run feels (issue 18): runs created one at a time on the gated
 * workspace; from POST /runs answered to the task service receiving the run's task request, and from the
 * stage's last callback sent to the stage's recorded final time. At idle, then under the mixed load
 * (95% GET of distinct teams + 5% PATCH, bench/mixed-load.ts) on the same server.
 */
async function gateLatency(context: ScenarioContext): Promise<void> {
  const runs = context.settings.rounds === 1 ? 10 : 100;
  const received = new Map<string, number>();
  const service = await answeringService(context.server.url, (runId) => received.set(runId, Date.now()));
  const client = new HttpClient(context.server.url, 4);
  try {
    const { call, createRun } = await gatedWorkspace(client, context.seeded.ownerToken, context.seeded.organization, service.service.url);
    const page = await call('GET', `/organizations/${context.seeded.organization}/teams?page%5Bsize%5D=100`);
    const teamIds = (page.data as Array<{ id: string }>).map((team) => team.id);
    const measure = async () => {
      const toRequest: number[] = [];
      const toFinal: number[] = [];
      for (let i = 0; i < runs; i++) {
        const runId = await createRun();
        const created = Date.now();
        const deadline = Date.now() + 30_000;
        let stage: any;
        while (!stage) {
          if (Date.now() > deadline) throw new Error(`gate latency: run ${runId} did not pass`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (!received.has(runId)) continue;
          const stages = await call('GET', `/runs/${runId}/task-stages`);
          if (stages.data[0]?.attributes.status === 'passed') stage = stages.data[0];
        }
        toRequest.push(received.get(runId)! - created);
        const lastCallback = Math.max(...stage.relationships['task-results'].data.map((r: any) => service.callbackDone.get(r.id) ?? 0));
        toFinal.push(Date.parse(stage.attributes['status-timestamps']['passed-at']) - lastCallback);
      }
      return { toRequest: percentiles(toRequest), toFinal: percentiles(toFinal) };
    };
    const idle = await measure();
    // The load comes from a process of its own: in this one it would delay the task service's clock.
    const background = startBackgroundLoad({ urls: [context.server.url], connections: context.settings.connections, keys: teamIds, tokens: [context.seeded.ownerToken], patchShare: 0.05 });
    const loaded = await measure().finally(() => background.stop());
    const text = (m: typeof idle) => `run created → task request p50 ${m.toRequest.p50} ms, p99 ${m.toRequest.p99} ms; last callback → stage final p50 ${m.toFinal.p50} ms, p99 ${m.toFinal.p99} ms`;
    context.rows.push({
      scenario: `gate latency: ${runs} runs one at a time, idle`,
      dialect: context.dialect,
      measured: text(idle),
      baseline: '-',
      ratio: '-',
      target: 'p99 ≤ 20 ms to the task request; p99 ≤ 50 ms to stage final',
      met: idle.toRequest.p99 <= 20 && idle.toFinal.p99 <= 50,
    });
    context.rows.push({
      scenario: `gate latency: ${runs} runs one at a time, under the mixed load (${context.settings.connections} connections)`,
      dialect: context.dialect,
      measured: text(loaded),
      baseline: '-',
      ratio: '-',
      // Issue 39: what a person waiting on a run feels stays under 50 ms while the server is busy.
      target: 'p99 ≤ 50 ms for both',
      met: loaded.toRequest.p99 <= 50 && loaded.toFinal.p99 <= 50,
    });
  } finally {
    await client.close();
    await service.close();
  }
}

extraScenarios.push({ name: 'run-task fan-out', run: fanOut }, { name: 'gate latency', run: gateLatency });
