/**
 * `npm run bench`: every scenario of issue 5, each side by side with its own baseline measured in the
 * same run, on SQLite and PostgreSQL. Prints a table and rewrites BENCHMARKS.md.
 * `npm run bench -- --smoke`: one short round on SQLite with a small organization (CI checks the bench works).
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../src/db/database.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { startBaselineProcess } from './baseline-process.js';
import { BenchDatabases } from './environment.js';
import { HttpClient } from '../test/helpers/http-client.js';
import { median, paired, SATURATED_SHARE } from './measure.js';
import { createTeamsLoad } from './create-load.js';
import { cpuText, fmt, ms, ratiosText } from './row-text.js';
import type { Row } from './row.js';
import { runWrk, WRK_MISSING, WRK_THREADS, wrkInstalled } from './wrk-load.js';
import { seedOrganization, type Seeded } from './seed.js';
import { extraScenarios } from './scenarios.js';
import { mixedScenarios } from './mixed-scenarios.js';
import { CONSOLE_SCENARIO, consoleScenario } from './console-scenario.js';
import { LARGE_PLAN_SCENARIO, largePlanScenario } from './console-large-plan-scenario.js';
import { startScenarios } from './start-scenario.js';
import './task-scenarios.js';
import './pipeline-scenario.js';
import './policy-isolation-scenario.js';
import './policy-evaluation-scenario.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const smoke = process.argv.includes('--smoke');
/**
 * `--only=<text>`: only scenarios whose name contains it, or one of its `|`-separated parts (e.g.
 * `--only='POST|fan-out'` to see the fan-out after the POST scenario's inserts). BENCHMARKS.md is then left alone.
 */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const dialectsArg = process.argv.find((arg) => arg.startsWith('--dialects='))?.slice('--dialects='.length);
const wanted = (name: string) => !only || only.split('|').some((part) => name.includes(part));
const settings = smoke
  ? { rounds: 1, duration: 1, connections: 10, teams: 1000, dialects: ['sqlite'] as Dialect[], growth: [] as number[] }
  : { rounds: 3, duration: 5, connections: 50, teams: 10_000, dialects: ['sqlite', 'postgres'] as Dialect[], growth: [1000, 10_000, 100_000] };
if (dialectsArg) settings.dialects = dialectsArg.split(',') as Dialect[];
// `--rounds=N`, `--seconds=N`: shorter runs while working on one scenario (BENCHMARKS.md needs the defaults).
const numberArg = (name: string) => Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? NaN);
if (numberArg('rounds') > 0) settings.rounds = numberArg('rounds');
if (numberArg('seconds') > 0) settings.duration = numberArg('seconds');


/** Every row is printed as soon as it is measured (a full run takes a while). */
const rows: Row[] = new Proxy([] as Row[], {
  set(target, property, value, receiver) {
    if (typeof value === 'object' && value !== null && 'scenario' in value) {
      const row = value as Row;
      console.error(`[bench] ${row.scenario} (${row.dialect}): ${row.measured} | baseline ${row.baseline} | ${row.ratio} | ${verdict(row, 'met', 'NOT met')}`);
    }
    return Reflect.set(target, property, value, receiver);
  },
});
/** Rows measured in a non-default mode (`sqlite, synchronous=FULL`) only show what the default gains. */
const verdict = (row: Row, yes: string, no: string) => (row.dialect.includes('synchronous=') ? 'comparison' : row.met ? yes : no);

async function createScenario(
  dialect: Dialect,
  databaseUrl: string,
  server: ServerProcess,
  seeded: Seeded,
  databaseCpuMs: (() => number) | undefined,
): Promise<void> {
  const headers = { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/vnd.api+json' };
  const body = JSON.stringify({ data: { type: 'teams', attributes: { name: `recorded-${process.pid}-${Date.now()}` } } });
  const first = await fetch(`${server.url}/api/v2/organizations/${seeded.organization}/teams`, { method: 'POST', headers, body });
  const recorded = { status: first.status, headers: { 'content-type': first.headers.get('content-type') ?? '' }, body: Buffer.from(await first.arrayBuffer()) };
  // On SQLite, Teamstage's default (group commit) and FULL both fsync before answering: the baseline's bare INSERT runs with FULL.
  const baseline = await startBaselineProcess('insert', recorded, databaseUrl);
  try {
    const common = { connections: settings.connections, durationSeconds: settings.duration, token: seeded.ownerToken };
    const result = await paired(
      settings.rounds,
      () => createTeamsLoad({ ...common, url: `${server.url}/api/v2/organizations/${seeded.organization}/teams` }),
      () => createTeamsLoad({ ...common, url: `${baseline.url}/insert` }),
      { target: { server: server.cpuMs, database: databaseCpuMs }, baseline: { server: baseline.cpuMs, database: databaseCpuMs } },
    );
    rows.push({
      scenario: 'POST /organizations/:org/teams',
      dialect,
      measured: `${fmt(result.target.rps)} req/s, p50 ${ms(result.target.p50)}, p99 ${ms(result.target.p99)}; CPU per request: ${cpuText(result.target.cpu)}`,
      baseline: `${fmt(result.baseline.rps)} req/s, p50 ${ms(result.baseline.p50)}, p99 ${ms(result.baseline.p99)} (one bare INSERT per request${dialect.startsWith('sqlite') ? ', synchronous=FULL' : ''}); CPU per request: ${cpuText(result.baseline.cpu)}`,
      ratio: ratiosText(result.target, result.baseline),
      target: '≥ 0.5×',
      met: result.ratio >= 0.5 && result.failures === 0,
    });
  } finally {
    await baseline.close();
  }
}

/**
 * The write-heavy scenarios again on SQLite with synchronous=FULL, SQLite's own fsync on every commit on
 * the event loop: what the default group commit (the same durability) gains over it.
 */
async function sqliteFullScenarios(databases: BenchDatabases): Promise<void> {
  const databaseUrl = await databases.fresh('sqlite');
  const seeded = await seedOrganization(databaseUrl, settings.teams);
  const server = await startServerProcess(
    { DATABASE_URL: databaseUrl, TEAMSTAGE_RATE_LIMIT: '0', TEAMSTAGE_SQLITE_SYNCHRONOUS: 'FULL' },
    { compiled: true },
  );
  const label = 'sqlite, synchronous=FULL' as Dialect;
  try {
    if (wanted('POST /organizations/:org/teams')) await createScenario(label, databaseUrl, server, seeded, undefined);
    for (const scenario of extraScenarios.filter((s) => s.name === 'run-task fan-out')) {
      if (wanted(scenario.name)) await scenario.run({ dialect: label, server, seeded, settings, rows });
    }
  } finally {
    await server.kill('SIGTERM');
  }
}

async function mainScenarios(databases: BenchDatabases, dialect: Dialect): Promise<void> {
  const databaseUrl = await databases.fresh(dialect);
  const seeded = await seedOrganization(databaseUrl, settings.teams);
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, TEAMSTAGE_RATE_LIMIT: '0' }, { compiled: true });
  try {
    const databaseCpuMs = databases.cpuProbe(dialect);
    if (wanted('POST /organizations/:org/teams')) await createScenario(dialect, databaseUrl, server, seeded, databaseCpuMs);
    for (const scenario of extraScenarios) {
      if (wanted(scenario.name)) await scenario.run({ dialect, server, seeded, settings, rows, databaseCpuMs });
    }
    // The console is the same files on either database. CI installs chromium, so the smoke run loads it too.
    if (dialect === 'sqlite' && wanted(CONSOLE_SCENARIO)) await consoleScenario({ server, loads: settings.rounds * 20, rows, skipWithoutChromium: smoke });
    // CI's smoke run only checks the row works (two loads); the figures come from a full run.
    if (dialect === 'sqlite' && wanted(LARGE_PLAN_SCENARIO)) await largePlanScenario({ server, seeded, loads: smoke ? 2 : settings.rounds * 5, rows, skipWithoutChromium: smoke });
  } finally {
    await server.kill('SIGTERM');
  }
}

/** p50 of one request at a time (exact, from hrtime): the work a request really does at that size. */
async function sequentialP50(url: string, headers: Record<string, string>): Promise<number> {
  const client = new HttpClient(new URL(url).origin, 1);
  const path = new URL(url).pathname + new URL(url).search;
  const separator = path.includes('?') ? '&' : '?';
  const durations: number[] = [];
  for (let i = 0; i < 50; i++) await client.request('GET', `${path}${separator}nocache=warm${i}`, headers.authorization!.slice(7));
  for (let i = 0; i < 500; i++) {
    const started = process.hrtime.bigint();
    const response = await client.request('GET', `${path}${separator}nocache=${i}`, headers.authorization!.slice(7));
    durations.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  }
  await client.close();
  return median(durations);
}

/** p50 of show and list at several organization sizes, and the peak RSS at the largest. */
async function growthScenario(databases: BenchDatabases, dialect: Dialect): Promise<void> {
  const p50s: Record<string, number[]> = { show: [], list: [] };
  let peakRss = 0;
  for (const size of settings.growth) {
    const databaseUrl = await databases.fresh(dialect);
    const seeded = await seedOrganization(databaseUrl, size);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, TEAMSTAGE_RATE_LIMIT: '0' }, { compiled: true });
    try {
      const headers = { authorization: `Bearer ${seeded.ownerToken}` };
      p50s.show!.push(await sequentialP50(`${server.url}/api/v2/teams/${seeded.sampleTeamId}`, headers));
      p50s.list!.push(await sequentialP50(`${server.url}/api/v2/organizations/${seeded.organization}/teams`, headers));
      // Memory under load: 50 connections on list and show at the largest size.
      if (size === Math.max(...settings.growth)) {
        for (const path of [`/api/v2/organizations/${seeded.organization}/teams`, `/api/v2/teams/${seeded.sampleTeamId}`]) {
          await runWrk({ url: `${server.url}${path}`, script: 'fixed', headers, connections: 50, durationSeconds: settings.duration });
        }
        peakRss = server.peakRssBytes();
      }
    } finally {
      await server.kill('SIGTERM');
    }
  }
  const sizes = settings.growth.map((size) => fmt(size)).join(' / ');
  for (const [name, values] of Object.entries(p50s)) {
    const growth = values[values.length - 1]! / Math.max(values[0]!, 0.001);
    rows.push({
      scenario: `cost growth: p50 of ${name} at ${sizes} teams`,
      dialect,
      measured: values.map((v) => `${fmt(v, 3)} ms`).join(' / '),
      baseline: `${fmt(values[0]!, 3)} ms at ${fmt(settings.growth[0]!)}`,
      ratio: `${fmt(growth, 2)}×`,
      target: '≤ 1.5× from smallest to largest',
      met: growth <= 1.5,
    });
  }
  rows.push({
    scenario: `memory: peak RSS under load at ${fmt(Math.max(...settings.growth))} teams`,
    dialect,
    measured: `${fmt(peakRss / 1024 / 1024)} MB`,
    baseline: '-',
    ratio: '-',
    target: '≤ 200 MB',
    met: peakRss > 0 && peakRss <= 200 * 1024 * 1024,
  });
}

function table(): string {
  const header = '| scenario | db | Teamstage (median) | limit or baseline (median) | ratio | target | met |\n| --- | --- | --- | --- | --- | --- | --- |';
  return [header, ...rows.map((r) => `| ${r.scenario} | ${r.dialect} | ${r.measured} | ${r.baseline} | ${r.ratio} | ${r.target} | ${verdict(r, 'yes', 'NO')} |`)].join('\n');
}

function writeBenchmarksFile(): void {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const file = path.join(root, 'BENCHMARKS.md');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const notesStart = previous.indexOf('## Notes');
  const notes = notesStart >= 0 ? previous.slice(notesStart) : '## Notes\n\n(What remains and why goes here.)\n';
  const content = `# Benchmarks

Generated by \`npm run bench\` on ${new Date().toISOString()}: ${os.cpus().length} × ${cpu}, ${fmt(os.totalmem() / 2 ** 30)} GiB,
Node ${process.version}, from one full run. Each figure is the median of ${settings.rounds} rounds of ${settings.duration} s with
${settings.connections} connections, every scenario alternating with its physical limit in the same run, each in a
process of its own. The load generator of every throughput row is wrk (C; ${WRK_THREADS} thread, on loopback, on the same
cores), the same script on both sides (\`bench/wrk/\`): a load generator in Node on these cores held the physical limit
at half a core, and the ratios measured it. CPU per request is read from \`/proc\` (PostgreSQL: the postmaster and its
backends; the load generator: wrk's own); it varies far less than throughput on a shared machine. Each side shows how
many cores its serving processes kept busy: below ${SATURATED_SHARE} of a core per process it is flagged NOT SATURATED,
with what held it back (the machine's cores full, from \`/proc/stat\`: load generator, PostgreSQL, anything else; or,
with cores to spare, the load generator or waiting), since a ratio against it does not measure its own work. The ratio
column gives both ratios: throughput (Teamstage's over the limit's) and CPU per request (Teamstage's over the limit's,
PostgreSQL's included); the targets judge throughput.

The rows of issue 18 run at the default configuration: request logs on (\`LOG_LEVEL=info\`), the security issue's
timeouts and per-organization fairness on, nothing cached; the rate limit is off (one token per connection would
exceed it) except for many callers, where 500 tokens share the mix at its default, 30 per second each. The requests
walk a random order through the teams (or queries), each request with the next token (as many tokens as connections;
500 for many callers), after two seconds of the mix on both sides. The
physical limit (\`bench/limit/\`) is a bare \`node:http\` server with better-sqlite3 in WAL mode: a GET is one
primary-key read answering the stored bytes, a PATCH one UPDATE group-committed by a writer thread with
\`synchronous=FULL\` (durable before anyone can see it); on PostgreSQL, \`pg\` with one prepared statement each; for
two nodes, two such processes. The list with \`q=\` walks 1,000 distinct queries over the seeded names (10–11 teams
each); its limit answers with one query through the index kind Teamstage uses (FTS5 trigram, pg_trgm), the stored
bytes of the page in Teamstage's envelope, checked equal to Teamstage's answer. On PostgreSQL these rows start after
a \`VACUUM ANALYZE\` of the loaded database, the state autovacuum reaches. Gate latency: runs created one at a time on
a workspace with a run task, idle and under the mix (wrk in the background). The console row: Debian's
chromium loads \`/app/\` with a cold cache (a fresh browser context each time) until the sign-in form is
interactive, alternating with a bare \`node:http\` page holding the same form. The POST, fan-out, growth and
memory rows are kept from earlier rounds (POST's baseline: one bare INSERT per request, \`synchronous=FULL\` on
SQLite); they run with \`TEAMSTAGE_RATE_LIMIT=0\` and \`LOG_LEVEL=warn\`.
The organization holds ${fmt(settings.teams)} teams (growth rows: as stated).

${table()}

${notes}`;
  fs.writeFileSync(file, content);
}

async function main(): Promise<void> {
  if (!wrkInstalled()) {
    console.error(WRK_MISSING);
    process.exit(1);
  }
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
  const databases = new BenchDatabases();
  try {
    for (const dialect of settings.dialects) {
      await mixedScenarios({ dialect, databases, settings, rows, wanted });
      if (dialect === 'postgres' && !smoke) await mixedScenarios({ dialect, databases, settings, rows, wanted, nodes: 2 });
      await mainScenarios(databases, dialect);
      await startScenarios({ dialect, databases, settings, rows, wanted });
      if (settings.growth.length > 0 && (wanted('cost growth') || wanted('memory'))) await growthScenario(databases, dialect);
      if (dialect === 'sqlite' && !smoke) await sqliteFullScenarios(databases);
    }
  } finally {
    await databases.close();
  }
  console.log(`\n${table()}\n`);
  if (smoke || only || numberArg('rounds') > 0 || numberArg('seconds') > 0) {
    if (rows.length === 0) throw new Error('smoke bench produced no rows');
    console.log('partial run: BENCHMARKS.md left unchanged');
  } else {
    writeBenchmarksFile();
    console.log('BENCHMARKS.md rewritten');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
