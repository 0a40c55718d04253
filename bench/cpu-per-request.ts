/**
 * `node --import tsx bench/cpu-per-request.ts [--teams=N] [--seconds=S] [--env=K=V,...]`: the server's CPU
 * per request for GET and PATCH of distinct teams, each measured alone, beside the SQLite limit's. A
 * diagnostic for profiling (CPU time from /proc varies far less than throughput on a shared machine), not
 * a bench row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../test/helpers/server-process.js';
import { recordResponse } from './baseline-server.js';
import { limitBodies, writeSqliteLimitData } from './limit/limit-data.js';
import { startLimitProcess } from './limit/limit-process.js';
import { mixedLoad } from './mixed-load.js';
import { seedOrganization } from './seed.js';
import { openDatabase } from '../src/db/database.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
const teamsCount = Number(arg('teams') ?? 10_000);
const seconds = Number(arg('seconds') ?? 5);
const extraEnv = Object.fromEntries((arg('env') ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-cpu-'));
const databaseUrl = `sqlite:${path.join(dir, 'db.sqlite')}`;
const seeded = await seedOrganization(databaseUrl, teamsCount);
const handle = openDatabase(databaseUrl);
const teams = await handle.db.selectFrom('teams').select(['id', 'name', 'visibility']).where('organization_name', '=', seeded.organization).where('is_owners', '=', 0).execute();
await handle.close();
const server = await startServerProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', TEAMSTAGE_RATE_LIMIT: '0', ...extraEnv }, { compiled: true });
const template = await recordResponse(`${server.url}/api/v2/teams/${seeded.sampleTeamId}`, { authorization: `Bearer ${seeded.ownerToken}` });
const limitFile = path.join(dir, 'limit.sqlite');
const sample = teams.find((team) => team.id === seeded.sampleTeamId)!;
// No list requests here: the limit's list envelope stays empty.
writeSqliteLimitData(limitFile, { teams: limitBodies(template.body, sample, teams), listTail: '' });
const limit = await startLimitProcess('sqlite', limitFile);
try {
  const base = { connections: 50, durationSeconds: seconds, keys: teams.map((t) => t.id), tokens: [seeded.ownerToken] };
  // JIT warm-up, not measured.
  await mixedLoad({ ...base, durationSeconds: 2, urls: [server.url], patchShare: 0.05 });
  for (const [name, patchShare] of [['GET', 0], ['mix 5%', 0.05], ['PATCH', 1]] as const) {
    for (const [side, url, cpu] of [['limit', limit.url, limit.cpuMs], ['teamstage', server.url, server.cpuMs]] as const) {
      const before = { cpu: cpu(), wall: performance.now() };
      const result = await mixedLoad({ ...base, urls: [url], patchShare });
      const used = cpu() - before.cpu;
      const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(result.total, 1));
      const cores = (used / (performance.now() - before.wall)).toFixed(2);
      console.log(
        `${name.padEnd(7)} ${side.padEnd(9)} ${Math.round(result.rps).toString().padStart(6)} req/s p99 ${result.p99} ms  CPU ${perRequest(used)} µs/request (${cores} core)  ` +
          `wrk ${perRequest(result.generatorCpuMs ?? 0)} µs/request  failed ${result.non2xx + result.errors}`,
      );
    }
  }
} finally {
  await server.kill('SIGTERM');
  await limit.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
