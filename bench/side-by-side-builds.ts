/**
 * `node --import tsx bench/side-by-side-builds.ts <other checkout> [sqlite|postgres] [windows] [seconds]`: CPU per
 * request of this checkout's build against another's (e.g. a worktree of main, built with `npm run build`), both
 * serving one database at once, the loads alternating between them in short windows (the order swapped each
 * window). On a machine others load too, both sides then meet the same noise, which alternating whole bench
 * runs minutes apart does not give (issue 39's A/B). Rows: GET of distinct teams with the owner's user token,
 * with owners-team tokens, and the 95/5 mix with owners-team tokens; server CPU from /proc, PostgreSQL's too.
 * A diagnostic, not a bench row.
 */
import { BenchDatabases } from './environment.js';
import { seedOrganization } from './seed.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { mixedLoad } from './mixed-load.js';
import { openDatabase } from '../src/db/database.js';

const otherRoot = process.argv[2];
if (!otherRoot) throw new Error('usage: side-by-side-builds.ts <other checkout> [sqlite|postgres] [windows] [seconds]');
const dialect = (process.argv[3] ?? 'postgres') as 'postgres' | 'sqlite';
const windows = Number(process.argv[4] ?? 6);
const seconds = Number(process.argv[5] ?? 3);
const databases = new BenchDatabases();
const url = await databases.fresh(dialect);
const seeded = await seedOrganization(url, 10000);
const handle = openDatabase(url);
const teams = (await handle.db.selectFrom('teams').select('id').where('is_owners', '=', 0).execute()).map((t) => t.id);
const owners = (await handle.db.selectFrom('teams').select('id').where('is_owners', '=', 1).executeTakeFirstOrThrow()).id;
await handle.close();
const pgCpu = databases.cpuProbe(dialect) ?? (() => 0);
const env = { DATABASE_URL: url, LOG_LEVEL: 'info', TEAMSTAGE_RATE_LIMIT: '0', TEAMSTAGE_JOBS: 'off' };
const sides = {
  other: await startServerProcess(env, { compiled: true, root: otherRoot, readyTimeoutMs: 120_000 }),
  this: await startServerProcess(env, { compiled: true, readyTimeoutMs: 120_000 }),
};
const post = async (path: string, body: unknown) => {
  const r = await fetch(`${sides.this.url}/api/v2${path}`, { method: 'POST', headers: { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(await r.text());
  return (await r.json()) as { data: { attributes: { token: string } } };
};
const ownersTokens: string[] = [];
for (let i = 0; i < 50; i++) ownersTokens.push((await post(`/teams/${owners}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: `b${i}` } } })).data.attributes.token);
const userTokens = [seeded.ownerToken];
const workloads = [
  ['GET user token', 0, userTokens],
  ['GET owners-team', 0, ownersTokens],
  ['mix owners-team', 0.05, ownersTokens],
] as const;
try {
  for (const side of Object.values(sides)) await mixedLoad({ urls: [side.url], connections: 50, durationSeconds: 2, keys: teams, tokens: userTokens, patchShare: 0.05 });
  for (const [name, patchShare, tokens] of workloads) {
    const used = { other: { server: 0, db: 0, n: 0, rps: [] as number[] }, this: { server: 0, db: 0, n: 0, rps: [] as number[] } };
    for (let w = 0; w < windows; w++) {
      for (const key of (w % 2 === 0 ? ['other', 'this'] : ['this', 'other']) as Array<'other' | 'this'>) {
        const s0 = sides[key].cpuMs(); const d0 = pgCpu();
        const r = await mixedLoad({ urls: [sides[key].url], connections: 50, durationSeconds: seconds, keys: teams, tokens: [...tokens], patchShare });
        if (r.non2xx + r.errors > 0) throw new Error(`${key} ${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        used[key].server += sides[key].cpuMs() - s0; used[key].db += pgCpu() - d0; used[key].n += r.total; used[key].rps.push(r.rps);
      }
    }
    for (const key of ['other', 'this'] as const) {
      const u = used[key];
      const med = [...u.rps].sort((a, b) => a - b)[Math.floor(u.rps.length / 2)]!;
      console.log(`${name.padEnd(16)} ${key.padEnd(5)} server ${Math.round((u.server * 1000) / u.n)} µs + db ${Math.round((u.db * 1000) / u.n)} µs = ${Math.round(((u.server + u.db) * 1000) / u.n)} µs per request; median ${Math.round(med)} req/s`);
    }
  }
} finally {
  await sides.other.kill('SIGTERM');
  await sides.this.kill('SIGTERM');
  await databases.close();
}
