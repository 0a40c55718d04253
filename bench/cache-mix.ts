/**
 * `node --import tsx bench/cache-mix.ts [--rounds=3] [--seconds=10] [--connections=50] [--teams=10000]`:
 * TEAMSTAGE_CACHE off against on under a realistic mix on SQLite (the measurement behind the default in
 * src/config.ts): 95% GET /teams/:id of random teams, 5% PATCH of one, each connection with its own token
 * and its own random order. Default configuration (request logs on, LOG_LEVEL=info), except the rate limit
 * (off, or it would cap the rate measured). Modes alternate within each round; prints medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { nowIso } from '../src/core/clock.js';
import { newId } from '../src/core/ids.js';
import { generateToken, hashToken } from '../src/identity/token-secrets.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { median } from './measure.js';
import { seedOrganization } from './seed.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const rounds = arg('rounds', 3);
const seconds = arg('seconds', 10);
const connections = arg('connections', 50);
const teamCount = arg('teams', 10_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-cache-mix-'));
const databaseUrl = `sqlite:${path.join(dir, 'db.sqlite')}`;
const seeded = await seedOrganization(databaseUrl, teamCount);

// One token per connection, all of the organization's owner (what the API's POST would store).
const sqlite = new SQLite(databaseUrl.slice('sqlite:'.length));
const owner = sqlite.prepare('select user_id from tokens where token_hash = ?').get(hashToken(seeded.ownerToken)) as { user_id: string };
const tokens = Array.from({ length: connections }, () => generateToken());
const insert = sqlite.prepare(
  `insert into tokens (id, kind, token_hash, user_id, organization_name, team_id, is_legacy, description, created_by_id, created_at, expired_at, last_used_at, acts_as_person)
   values (?, 'user', ?, ?, null, null, 0, null, ?, ?, null, null, 1)`,
);
for (const token of tokens) insert.run(newId('at'), hashToken(token), owner.user_id, owner.user_id, nowIso());
const teamIds = (sqlite.prepare('select id from teams where is_owners = 0').pluck().all() as string[]);
sqlite.close();

const random = (n: number) => Math.floor(Math.random() * n);

async function measure(cache: 'off' | 'on') {
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, TEAMSTAGE_CACHE: cache, TEAMSTAGE_RATE_LIMIT: '0', LOG_LEVEL: 'info', TEAMSTAGE_DATA_DIR: dir }, { readyTimeoutMs: 180_000 });
  let nextToken = 0;
  try {
    const result = await autocannon({
      url: server.url,
      connections,
      duration: seconds,
      requests: [
        {
          setupRequest: (request: any, context: any) => {
            context.token ??= tokens[nextToken++ % tokens.length];
            const id = teamIds[random(teamIds.length)];
            const headers = { authorization: `Bearer ${context.token}`, 'content-type': 'application/vnd.api+json' };
            if (Math.random() < 0.05) {
              const body = JSON.stringify({ data: { type: 'teams', attributes: { visibility: Math.random() < 0.5 ? 'secret' : 'organization' } } });
              return { ...request, method: 'PATCH', path: `/api/v2/teams/${id}`, headers, body };
            }
            return { ...request, method: 'GET', path: `/api/v2/teams/${id}`, headers, body: undefined };
          },
        },
      ],
    });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
  } finally {
    await server.kill('SIGTERM');
  }
}

const results: Record<'off' | 'on', Array<Awaited<ReturnType<typeof measure>>>> = { off: [], on: [] };
for (let round = 0; round < rounds; round++) {
  for (const cache of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    const result = await measure(cache);
    results[cache].push(result);
    console.error(`[cache-mix] round ${round + 1} cache=${cache}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
  }
}
for (const cache of ['off', 'on'] as const) {
  const rs = results[cache];
  console.log(`cache=${cache}: median ${median(rs.map((r) => r.rps)).toFixed(0)} req/s, p50 ${median(rs.map((r) => r.p50))} ms, p99 ${median(rs.map((r) => r.p99))} ms (${rounds} rounds of ${seconds} s, ${connections} connections, ${teamCount} teams)`);
}
fs.rmSync(dir, { recursive: true, force: true });
