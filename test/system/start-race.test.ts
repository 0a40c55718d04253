/**
 * Every write a node makes while starting is safe when several nodes start at once on a fresh database
 * (issue 31: two nodes once inserted the same site token and one crashed on the duplicate key). Four real
 * processes start together on a fresh database, twenty times on PostgreSQL (five on SQLite, whose processes
 * share a file): every one becomes ready, the configured site token is the one site token, and it works.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import Database from 'better-sqlite3';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const NODES = 4;
const ROUNDS = { postgres: 20, sqlite: 5 } as const;

async function siteTokenRows(url: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare(`select count(*) as n from tokens where kind = 'site'`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(`select count(*)::int as n from tokens where kind = 'site'`);
    return result.rows[0].n as number;
  } finally {
    await client.end();
  }
}

for (const dialect of testDialects()) {
  describe(`${NODES} nodes starting at once on a fresh database, ${ROUNDS[dialect]} times (${dialect})`, { timeout: 600_000 }, () => {
    it('every node starts, and they agree on one site token', async () => {
      for (let round = 1; round <= ROUNDS[dialect]; round++) {
        const database = await freshDatabaseUrl(dialect);
        const siteToken = randomBytes(24).toString('hex');
        const started = await Promise.allSettled(
          Array.from({ length: NODES }, () =>
            startServerProcess({ DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_JOBS: 'off' }),
          ),
        );
        const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])) as ServerProcess[];
        try {
          const failures = started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason).slice(0, 2000)] : []));
          assert.deepEqual(failures, [], `round ${round}: every node starts`);
          assert.equal(await siteTokenRows(database.url), 1, `round ${round}: one site token`);
          for (const server of servers) {
            const response = await fetch(`${server.url}/api/v2/admin/users`, { headers: { authorization: `Bearer ${siteToken}` } });
            assert.equal(response.status, 200, `round ${round}: the site token works on every node`);
          }
        } finally {
          await Promise.all(servers.map((server) => server.kill('SIGTERM')));
          await database.drop();
        }
      }
    });
  });
}
