/**
 * Issue 14, item 11, against real server processes: a flood of made-up tokens from one address is refused
 * (429) before any database work once that address has used up its failure budget, while a valid user at
 * the same address keeps working. Prints the valid user's latency idle and under the flood, with the
 * limit and without it (TEAMSTAGE_AUTH_FAILURE_LIMIT=0), for RELIABILITY.md. No assertion on speed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import autocannon from 'autocannon';
import type { Dialect } from '../../src/db/database.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

const FLOOD_CONNECTIONS = 32;
const FLOOD_SECONDS = 4;
const LIMIT = 60;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Sequential requests of a valid user until `until` resolves; their latencies in ms and statuses. */
async function validUser(client: HttpClient, token: string, organization: string, until: Promise<unknown>) {
  let done = false;
  void until.then(() => (done = true));
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  for (let i = 1; !done; i++) {
    const started = performance.now();
    // A new page each time: a cache hit would measure nothing.
    const response = await client.request('GET', `/organizations/${organization}/teams?page[number]=${i}`, token);
    latencies.push(performance.now() - started);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  return { latencies, statuses };
}

async function scenario(dialect: Dialect, limit: number) {
  const database = await freshDatabaseUrl(dialect);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-flood-'));
  const siteToken = randomBytes(24).toString('hex');
  const server = await startServerProcess({
    DATABASE_URL: database.url,
    TEAMSTAGE_DATA_DIR: dataDir,
    TEAMSTAGE_SITE_TOKEN: siteToken,
    TEAMSTAGE_RATE_LIMIT: '0',
    TEAMSTAGE_AUTH_FAILURE_LIMIT: String(limit),
  });
  const client = new HttpClient(server.url, 2);
  try {
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `flood${randomBytes(3).toString('hex')}`);
    const idle = await validUser(client, ownerToken, organization, new Promise((resolve) => setTimeout(resolve, 2000)));
    const flood = autocannon({
      url: `${server.url}/api/v2/account/details`,
      connections: FLOOD_CONNECTIONS,
      duration: FLOOD_SECONDS,
      requests: [{ setupRequest: (request: any) => ({ ...request, headers: { authorization: `Bearer ${randomBytes(32).toString('hex')}` } }) }],
    });
    const during = await validUser(client, ownerToken, organization, flood);
    const result = await flood;
    const floodStatuses = result.statusCodeStats as unknown as Record<string, { count: number }>;
    // A request autocannon gave up on (timeout, reset) still reaches authentication, and its connection
    // is replaced by one that sends another.
    const abandoned = result.timeouts + result.errors;
    return { idle, during, floodStatuses, floodTotal: result.requests.total, abandoned };
  } finally {
    await client.close();
    await server.kill('SIGTERM');
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const dialect of testDialects()) {
  describe(`a flood of made-up tokens from one address (${dialect})`, { timeout: 180_000 }, () => {
    it('is refused before any database work once over the budget, and a valid user at that address keeps working', async () => {
      const limited = await scenario(dialect, LIMIT);
      const unlimited = await scenario(dialect, 0);
      const count = (statuses: Record<string, { count: number }>, code: number) => statuses[String(code)]?.count ?? 0;

      for (const run of [limited, unlimited]) {
        assert.deepEqual([...run.idle.statuses.keys()], [200]);
        assert.deepEqual([...run.during.statuses.keys()], [200], 'every request of the valid user succeeded during the flood');
      }
      const refused = count(limited.floodStatuses, 429);
      const failed = count(limited.floodStatuses, 401);
      // Requests already in flight when the budget ran out still reach authentication: at most one per
      // connection, and one per request abandoned by the client on a slow machine.
      const inFlight = FLOOD_CONNECTIONS + limited.abandoned;
      assert.ok(failed <= LIMIT + inFlight, `${failed} made-up tokens were looked up (limit ${LIMIT} per minute, ${inFlight} in flight at most)`);
      assert.ok(refused >= limited.floodTotal - failed, `${refused} of ${limited.floodTotal} flood requests refused with 429`);
      assert.equal(count(unlimited.floodStatuses, 401), unlimited.floodTotal, 'without the limit every made-up token is looked up');

      const figures = (run: typeof limited) =>
        `idle p50 ${percentile(run.idle.latencies, 50).toFixed(1)} ms p99 ${percentile(run.idle.latencies, 99).toFixed(1)} ms; ` +
        `under flood p50 ${percentile(run.during.latencies, 50).toFixed(1)} ms p99 ${percentile(run.during.latencies, 99).toFixed(1)} ms ` +
        `(${run.during.latencies.length} requests); flood ${run.floodTotal} requests in ${FLOOD_SECONDS} s, ${run.abandoned} abandoned`;
      console.log(`${dialect}, TEAMSTAGE_AUTH_FAILURE_LIMIT=${LIMIT}: valid user ${figures(limited)}, ${failed} looked up, ${refused} refused (429)`);
      console.log(`${dialect}, TEAMSTAGE_AUTH_FAILURE_LIMIT=0: valid user ${figures(unlimited)}, all looked up (401)`);
    });
  });
}
