/**
 * Issue 39's start and memory rows: how long a node takes from its process start to /readyz 200 over a database
 * that already holds an organization of `settings.teams` teams (and to its first answered GET /teams/:id),
 * alternating with the limit of a start (start-limit.mjs: a bare Node process that opens the same database and
 * listens); and the peak resident memory of a node serving the mix (95% GET + 5% PATCH of distinct teams).
 * The server is the compiled one `npm start` runs, at the default log level.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../src/db/database.js';
import { openDatabase } from '../src/db/database.js';
import { freePort } from '../test/helpers/postgres-server.js';
import { processCpuMs } from '../test/helpers/process-cpu.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import type { BenchDatabases } from './environment.js';
import { median } from './measure.js';
import { mixedLoad } from './mixed-load.js';
import { fmt } from './row-text.js';
import type { Row } from './row.js';
import { seedOrganization, type Seeded } from './seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ownRoot = path.resolve(here, '..');
export const START_SCENARIO = 'start: process start → /readyz 200, with data';
export const MEMORY_SCENARIO = 'memory: peak RSS of a node under the mix';
const START_TARGET_MS = 500;
const RSS_TARGET_MIB = 120;
/** A start's wait for /readyz polls this often: a tenth of what it measures would blur the figure. */
const POLL_MS = 2;
const READY_LIMIT_MS = 60_000;

export interface StartMeasurement {
  readyMs: number;
  /** To the first GET /teams/:id answered (the team's read, the token's check, the route's first validation). */
  firstAnswerMs: number;
  /** CPU the process used up to its first answer. */
  cpuMs: number;
}

function getStatus(port: number, requestPath: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: requestPath, headers, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
  });
}

/** Spawns `args` (a node process listening on `port`), times /readyz 200 and the first answer of `firstPath`, stops it. */
async function timeOneStart(args: string[], env: Record<string, string>, port: number, first: { path: string; headers: Record<string, string> }): Promise<StartMeasurement> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode} before it was ready:\n${errors}`);
      if ((await getStatus(port, '/readyz')) === 200) break;
      if (performance.now() - started > READY_LIMIT_MS) throw new Error(`not ready within ${READY_LIMIT_MS} ms:\n${errors}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const readyMs = performance.now() - started;
    const status = await getStatus(port, first.path, first.headers);
    if (status !== 200) throw new Error(`the first answer of ${first.path} was ${status}:\n${errors}`);
    return { readyMs, firstAnswerMs: performance.now() - started, cpuMs: processCpuMs(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** One start of the compiled server under `root` (this checkout by default) over `databaseUrl`. */
export async function timeServerStart(databaseUrl: string, seeded: Seeded, root = ownRoot): Promise<StartMeasurement> {
  const port = await freePort();
  const env = { DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info' };
  const first = { path: `/api/v2/teams/${seeded.sampleTeamId}`, headers: { authorization: `Bearer ${seeded.ownerToken}` } };
  return timeOneStart([path.join(root, 'dist/bundle/teamstage.mjs'), 'serve'], env, port, first);
}

/** One start of the limit: a bare process that opens the same database, reads it once and listens. */
export async function timeLimitStart(databaseUrl: string): Promise<StartMeasurement> {
  const port = await freePort();
  return timeOneStart([path.join(here, 'start-limit.mjs'), databaseUrl, String(port)], {}, port, { path: '/readyz', headers: {} });
}

const summary = (list: StartMeasurement[]) => ({
  ready: median(list.map((m) => m.readyMs)),
  first: median(list.map((m) => m.firstAnswerMs)),
  cpu: median(list.map((m) => m.cpuMs)),
});

async function teamIds(databaseUrl: string, organization: string): Promise<string[]> {
  const handle = openDatabase(databaseUrl);
  try {
    const rows = await handle.db.selectFrom('teams').select('id').where('organization_name', '=', organization).where('is_owners', '=', 0).execute();
    return rows.map((row) => row.id);
  } finally {
    await handle.close();
  }
}

export async function startScenarios(context: {
  dialect: Dialect;
  databases: BenchDatabases;
  settings: { rounds: number; duration: number; connections: number; teams: number };
  rows: Row[];
  wanted: (name: string) => boolean;
}): Promise<void> {
  const { dialect, databases, settings, rows, wanted } = context;
  if (!wanted(START_SCENARIO) && !wanted(MEMORY_SCENARIO)) return;
  const databaseUrl = await databases.fresh(dialect);
  const seeded = await seedOrganization(databaseUrl, settings.teams);
  if (wanted(START_SCENARIO)) {
    // Alternating, so a machine that gets busier part-way weighs on both sides alike; the first start of each
    // (cold file cache) is not counted.
    await timeServerStart(databaseUrl, seeded);
    await timeLimitStart(databaseUrl);
    const server: StartMeasurement[] = [];
    const limit: StartMeasurement[] = [];
    const starts = Math.max(5, settings.rounds * 2 + 1);
    for (let i = 0; i < starts; i++) {
      limit.push(await timeLimitStart(databaseUrl));
      server.push(await timeServerStart(databaseUrl, seeded));
    }
    const s = summary(server);
    const l = summary(limit);
    rows.push({
      scenario: START_SCENARIO,
      dialect,
      measured: `p50 ${fmt(s.ready)} ms to ready, ${fmt(s.first)} ms to the first GET /teams/:id answered; CPU to that answer ${fmt(s.cpu)} ms (${starts} starts, ${fmt(settings.teams)} teams, the compiled server)`,
      baseline: `p50 ${fmt(l.ready)} ms; CPU ${fmt(l.cpu)} ms (bare node: opens the database, reads it once, node:http answers /readyz)`,
      ratio: `${fmt(s.ready / Math.max(l.ready, 1), 1)}× the bare start; CPU ${fmt(s.cpu / Math.max(l.cpu, 1), 1)}×`,
      target: `≤ ${START_TARGET_MS} ms to ready (issue 39)`,
      met: s.ready <= START_TARGET_MS,
    });
  }
  if (wanted(MEMORY_SCENARIO)) {
    const keys = await teamIds(databaseUrl, seeded.organization);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', TEAMSTAGE_RATE_LIMIT: '0' }, { compiled: true });
    try {
      const load = { urls: [server.url], connections: settings.connections, keys, tokens: [seeded.ownerToken], patchShare: 0.05 };
      let answered = 0;
      let failed = 0;
      for (let round = 0; round < settings.rounds; round++) {
        const result = await mixedLoad({ ...load, durationSeconds: settings.duration });
        answered += result.total;
        failed += result.non2xx + result.errors;
      }
      const peakMiB = server.peakRssBytes() / 1024 / 1024;
      rows.push({
        scenario: MEMORY_SCENARIO,
        dialect,
        measured: `${fmt(peakMiB)} MiB (VmHWM after ${settings.rounds} × ${settings.duration} s of the mix, ${settings.connections} connections, ${fmt(answered)} answers${failed ? `, ${fmt(failed)} failed` : ''})`,
        baseline: '-',
        ratio: '-',
        target: `≤ ${RSS_TARGET_MIB} MiB (issue 39)`,
        met: peakMiB > 0 && peakMiB <= RSS_TARGET_MIB && failed === 0,
      });
    } finally {
      await server.kill('SIGTERM');
    }
  }
}
