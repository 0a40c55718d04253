/**
 * Issue 18's rows: what users send, each alternating with its physical limit (bench/limit/) in one run.
 * mixed (95% GET of distinct teams + 5% PATCH), reads (100% GET of distinct teams; a page of the team
 * list with `q` over distinct queries) and many callers
 * (the mix over 500 tokens with the default rate limit on), on SQLite, one PostgreSQL node and two nodes
 * over one PostgreSQL; GET and the mix also with team tokens and owners-team tokens (issue 39: a row per
 * token kind). The servers run at the default configuration: request logs on (LOG_LEVEL=info);
 * the rate limit is off (0) where one token per connection would exceed it, and on for many callers.
 */
import path from 'node:path';
import { nowIso } from '../src/core/clock.js';
import { newId } from '../src/core/ids.js';
import { openDatabase, type Dialect } from '../src/db/database.js';
import { generateToken, hashToken } from '../src/identity/token-secrets.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { recordResponse } from './baseline-server.js';
import type { BenchDatabases } from './environment.js';
import { limitBodies, writePgLimitData, writeSqliteLimitData, type LimitData } from './limit/limit-data.js';
import { startLimitProcess, type LimitProcess } from './limit/limit-process.js';
import { listTailTemplate } from './limit/team-list-document.js';
import { counted, cpuPerRequest, median, nothingSpent, type CpuPerRequest, type LoadResult, type Spent } from './measure.js';
import { mixedLoad, type MixedLoadOptions } from './mixed-load.js';
import { cpuText, fmt, ms, ratiosText } from './row-text.js';
import type { Row } from './row.js';
import { seedOrganization, seedTeamQueries, type Seeded } from './seed.js';

export interface MixedSettings {
  rounds: number;
  duration: number;
  connections: number;
  teams: number;
}

interface Side {
  load: (options: Omit<MixedLoadOptions, 'urls'>) => Promise<LoadResult>;
  /** CPU time in ms of the serving processes, and of PostgreSQL when it runs apart. */
  cpuMs: () => number;
  databaseCpuMs?: () => number;
  /** How many processes serve (each can keep one core busy). */
  processes: number;
}

interface SideSummary {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  cpu: CpuPerRequest;
}

/** Limit and Teamstage alternately, `rounds` times each; medians, and CPU per request over all rounds. */
async function paired(rounds: number, options: Omit<MixedLoadOptions, 'urls'>, target: Side, limit: Side) {
  const run = async (side: Side, list: LoadResult[], spent: Spent) => {
    list.push(await counted(() => side.load(options), { server: side.cpuMs, database: side.databaseCpuMs }, spent));
  };
  const results = { target: [] as LoadResult[], limit: [] as LoadResult[] };
  const spent = { target: nothingSpent(), limit: nothingSpent() };
  for (let round = 0; round < rounds; round++) {
    await run(limit, results.limit, spent.limit);
    await run(target, results.target, spent.target);
  }
  const summary = (list: LoadResult[], used: Spent, side: Side): SideSummary => {
    const answered = list.reduce((sum, r) => sum + r.total, 0) || 1;
    return {
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      failures: list.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      cpu: cpuPerRequest(used, answered, side.databaseCpuMs !== undefined, side.processes),
    };
  };
  return { target: summary(results.target, spent.target, target), limit: summary(results.limit, spent.limit, limit) };
}

const sideText = (s: SideSummary) =>
  `${fmt(s.rps)} req/s, p50 ${ms(s.p50)}, p99 ${ms(s.p99)}; CPU per request: ${cpuText(s.cpu)}${s.failures ? `; ${fmt(s.failures)} failed` : ''}`;

/** `count` more tokens of the seeded owner, written as the API would store them, and every team's id, name and visibility. */
async function tokensAndTeams(databaseUrl: string, seeded: Seeded, count: number) {
  const handle = openDatabase(databaseUrl);
  try {
    const owner = await handle.db.selectFrom('tokens').select('user_id').where('token_hash', '=', hashToken(seeded.ownerToken)).executeTakeFirstOrThrow();
    const tokens = Array.from({ length: count }, () => generateToken());
    for (let start = 0; start < tokens.length; start += 100) {
      await handle.db
        .insertInto('tokens')
        .values(
          tokens.slice(start, start + 100).map((token) => ({
            id: newId('at'), kind: 'user' as const, token_hash: hashToken(token), user_id: owner.user_id, organization_name: null, team_id: null,
            is_legacy: 0 as const, description: null, created_by_id: owner.user_id, created_at: nowIso(), expired_at: null, last_used_at: null, acts_as_person: 1 as const,
          })),
        )
        .execute();
    }
    const teams = await handle.db.selectFrom('teams').select(['id', 'name', 'visibility']).where('organization_name', '=', seeded.organization).where('is_owners', '=', 0).execute();
    const owners = await handle.db.selectFrom('teams').select('id').where('organization_name', '=', seeded.organization).where('is_owners', '=', 1).executeTakeFirstOrThrow();
    return { tokens, teams, ownersTeamId: owners.id };
  } finally {
    await handle.close();
  }
}

/**
 * `count` team tokens of the owners team and `count` of a team that may see every team (manage-teams with access-secret-teams), made
 * through the API as a client would (POST /teams/:id/authentication-tokens, the multi-token kind): the rows
 * per token kind (issue 39), since each kind takes its own path to the caller's standing.
 */
async function teamTokens(url: string, seeded: Seeded, ownersTeamId: string, count: number): Promise<{ team: string[]; owners: string[] }> {
  const call = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${url}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { data: { id: string; attributes: { token?: string } } };
  };
  const readers = await call('POST', `/organizations/${seeded.organization}/teams`, {
    data: { type: 'teams', attributes: { name: 'bench-readers', visibility: 'secret', 'organization-access': { 'manage-teams': true, 'manage-membership': true, 'access-secret-teams': true } } },
  });
  const tokensOf = async (teamId: string) => {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const issued = await call('POST', `/teams/${teamId}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: `bench ${i}` } } });
      tokens.push(issued.data.attributes.token!);
    }
    return tokens;
  };
  return { team: await tokensOf(readers.data.id), owners: await tokensOf(ownersTeamId) };
}

/**
 * The limit's answer to `path` must be Teamstage's recorded answer byte for byte (its own origin in the
 * links), or the row would compare different work.
 */
async function assertSameAnswer(recorded: Buffer, teamstageUrl: string, limitUrl: string, path: string): Promise<void> {
  const expected = recorded.toString().split(teamstageUrl).join(limitUrl);
  const actual = await (await fetch(`${limitUrl}${path}`)).text();
  if (actual !== expected) throw new Error(`the limit answers ${path} with ${actual.length} bytes, unlike Teamstage's ${expected.length}:\n${actual.slice(0, 300)}\n${expected.slice(0, 300)}`);
}

function teamstageSide(servers: ServerProcess[], databaseCpuMs?: () => number): Side {
  return {
    load: (options) => mixedLoad({ ...options, urls: servers.map((s) => s.url) }),
    cpuMs: () => servers.reduce((sum, s) => sum + s.cpuMs(), 0),
    databaseCpuMs,
    processes: servers.length,
  };
}

function limitSide(limits: LimitProcess[], databaseCpuMs?: () => number): Side {
  return {
    load: (options) => mixedLoad({ ...options, urls: limits.map((l) => l.url) }),
    cpuMs: () => limits.reduce((sum, l) => sum + l.cpuMs(), 0),
    databaseCpuMs,
    processes: limits.length,
  };
}

export async function mixedScenarios(context: {
  dialect: Dialect;
  databases: BenchDatabases;
  settings: MixedSettings;
  rows: Row[];
  wanted: (name: string) => boolean;
  /** Two nodes over one database (PostgreSQL). */
  nodes?: 1 | 2;
}): Promise<void> {
  const { dialect, databases, settings, rows, wanted } = context;
  const nodes = context.nodes ?? 1;
  const label = nodes === 2 ? `${dialect}, two nodes` : dialect;
  const names = {
    mixed: 'mixed: 95% GET /teams/:id of distinct teams + 5% PATCH',
    mixedOwners: 'mixed: 95% GET /teams/:id of distinct teams + 5% PATCH, owners-team tokens',
    reads: 'reads: 100% GET /teams/:id of distinct teams',
    readsTeam: 'reads: 100% GET /teams/:id of distinct teams, team tokens (a manage-teams team with access-secret-teams)',
    readsOwners: 'reads: 100% GET /teams/:id of distinct teams, owners-team tokens',
    search: 'reads: a page of GET /organizations/:org/teams?q= over distinct queries',
    many: 'many callers: the mix over 500 tokens, rate limit on',
  };
  const scenarios = nodes === 2 ? [names.mixed] : Object.values(names);
  if (!scenarios.some(wanted)) return;
  const databaseUrl = await databases.fresh(dialect);
  const seeded = await seedOrganization(databaseUrl, settings.teams);
  const { tokens, teams, ownersTeamId } = await tokensAndTeams(databaseUrl, seeded, 500);
  const teamIds = teams.map((t) => t.id);
  const queries = seedTeamQueries(settings.teams);
  const listPath = (q: string) => `/api/v2/organizations/${seeded.organization}/teams?q=${q}`;
  const sampleQuery = queries[Math.floor(queries.length / 2)]!;
  const databaseCpuMs = databases.cpuProbe(dialect);
  const start = (rateLimit: boolean) =>
    Promise.all(
      Array.from({ length: nodes }, () =>
        startServerProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...(rateLimit ? {} : { TEAMSTAGE_RATE_LIMIT: '0' }) }, { compiled: true, readyTimeoutMs: 120_000 }),
      ),
    );
  let servers = await start(false);
  const limits: LimitProcess[] = [];
  try {
    // Teamstage's answers before any load changed a team: the limit stores and sends the same bytes.
    const owner = { authorization: `Bearer ${seeded.ownerToken}` };
    const template = await recordResponse(`${servers[0]!.url}/api/v2/teams/${seeded.sampleTeamId}`, owner);
    const listTemplate = await recordResponse(`${servers[0]!.url}${listPath(sampleQuery)}`, owner);
    const sample = teams.find((team) => team.id === seeded.sampleTeamId)!;
    const data: LimitData = {
      teams: limitBodies(template.body, sample, teams),
      listTail: listTailTemplate(listTemplate.body, { origin: servers[0]!.url, q: sampleQuery }),
    };
    const limitTarget = dialect === 'sqlite' ? path.join(path.dirname(databaseUrl.slice('sqlite:'.length)), 'limit.sqlite') : databaseUrl;
    if (dialect === 'sqlite') writeSqliteLimitData(limitTarget, data);
    else await writePgLimitData(limitTarget, data);
    for (let i = 0; i < nodes; i++) limits.push(await startLimitProcess(dialect, limitTarget));
    await assertSameAnswer(listTemplate.body, servers[0]!.url, limits[0]!.url, listPath(sampleQuery));
    const base = { connections: settings.connections, durationSeconds: settings.duration, keys: teamIds, tokens: tokens.slice(0, settings.connections) };
    const limitDescription = (name: string) =>
      name === names.search
        ? dialect === 'sqlite'
          ? 'bare node:http + better-sqlite3: one query through an FTS5 trigram index answering the stored bytes of the page and its count'
          : 'bare node:http + pg: one prepared query through a pg_trgm index answering the stored bytes of the page and its count'
        : dialect === 'sqlite'
          ? 'bare node:http + better-sqlite3 WAL: GET one PK read, PATCH one UPDATE group-committed by a writer thread, synchronous=FULL'
          : `bare node:http + pg${nodes === 2 ? ', two processes' : ''}: one prepared PK read / UPDATE`;
    // Both sides start cold (JIT, SQLite's page cache, each token's first use of the minute): two seconds
    // of the mix first, not measured, so the rounds see the steady state users get.
    const warmUp = async (options: Pick<MixedLoadOptions, 'tokens'>) => {
      for (const side of [limitSide(limits, databaseCpuMs), teamstageSide(servers, databaseCpuMs)]) await side.load({ ...base, ...options, durationSeconds: 2, patchShare: 0.05 });
    };
    await warmUp({ tokens: base.tokens });
    // Token kinds (issue 39): the user rows above walk with the owner's user tokens; these with team tokens.
    const kinds = scenarios.some((name) => [names.mixedOwners, names.readsTeam, names.readsOwners].includes(name) && wanted(name))
      ? await teamTokens(servers[0]!.url, seeded, ownersTeamId, settings.connections)
      : { team: [], owners: [] };
    // Issue 39's bound on PostgreSQL for a team read and the mix with an owners-team token: server and PostgreSQL CPU per request.
    const cpuBound = dialect === 'postgres' ? '; CPU per request ≤ 300 µs (server + PostgreSQL)' : '';
    let mixedRps = 0;
    const workloads: Array<[string, number, string, Pick<MixedLoadOptions, 'keys' | 'getPath'> & Partial<Pick<MixedLoadOptions, 'tokens'>>]> = [
      [names.mixed, 0.05, '≥ 0.5×' + (dialect === 'sqlite' ? ', p99 ≤ 2× the limit’s' : ''), { keys: teamIds }],
      [names.mixedOwners, 0.05, '≥ 0.5×' + cpuBound, { keys: teamIds, tokens: kinds.owners }],
      [names.reads, 0, '≥ 0.6×', { keys: teamIds }],
      [names.readsTeam, 0, '≥ 0.6×', { keys: teamIds, tokens: kinds.team }],
      [names.readsOwners, 0, '≥ 0.6×' + cpuBound, { keys: teamIds, tokens: kinds.owners }],
      [names.search, 0, '≥ 0.6×', { keys: queries, getPath: listPath }],
    ];
    for (const [name, patchShare, target, walk] of workloads) {
      if (!scenarios.includes(name) || !wanted(name)) continue;
      // The limit answers every kind alike (it reads no token): the same bytes as the owner's user token's answer.
      const result = await paired(settings.rounds, { ...base, ...walk, patchShare }, teamstageSide(servers, databaseCpuMs), limitSide(limits, databaseCpuMs));
      const ratio = result.target.rps / Math.max(result.limit.rps, 1);
      if (name === names.mixed) mixedRps = result.target.rps;
      const p99Met = !(name === names.mixed && dialect === 'sqlite') || result.target.p99 <= 2 * result.limit.p99;
      const cpuMet = !target.includes('300 µs') || result.target.cpu.serverUs + (result.target.cpu.databaseUs ?? 0) <= 300;
      rows.push({
        scenario: name,
        dialect: label,
        measured: sideText(result.target),
        baseline: `${sideText(result.limit)} (${limitDescription(name)})`,
        ratio: ratiosText(result.target, result.limit),
        target,
        met: ratio >= (patchShare > 0 ? 0.5 : 0.6) && p99Met && cpuMet && result.target.failures === 0 && result.limit.failures === 0 && result.limit.rps > 0,
      });
    }
    if (scenarios.includes(names.many) && wanted(names.many)) {
      await Promise.all(servers.map((s) => s.kill('SIGTERM')));
      servers = await start(true);
      await warmUp({ tokens });
      const result = await paired(settings.rounds, { ...base, tokens, patchShare: 0.05 }, teamstageSide(servers, databaseCpuMs), limitSide(limits, databaseCpuMs));
      const ratio = mixedRps > 0 ? result.target.rps / mixedRps : 0;
      rows.push({
        scenario: names.many,
        dialect: label,
        measured: sideText(result.target),
        baseline: `limit ${sideText(result.limit)}; the mixed row: ${fmt(mixedRps)} req/s`,
        ratio: `${mixedRps > 0 ? `${fmt(ratio, 2)}× the mixed row` : '-'}; limit: ${ratiosText(result.target, result.limit)}`,
        target: '≥ 0.8× the mixed row',
        met: ratio >= 0.8 && result.target.failures === 0,
      });
    }
  } finally {
    await Promise.all(servers.map((s) => s.kill('SIGTERM')));
    for (const limit of limits) await limit.close();
  }
}
