/**
 * Issue 40, expand then contract: a rolling upgrade on PostgreSQL. A node of the previous release (its sources
 * from git, test/helpers/previous-release.ts) serves; a node of this build starts on the same database and
 * migrates it; then both serve side by side while runs gated by a run task are made on each, deliveries go out
 * from either node (they share the job queue), callbacks land, and each node reads the other's runs. No
 * request may answer 5xx and every gated run must pass its stage. TEAMSTAGE_PREVIOUS_RELEASE picks another
 * previous release (a commit or tag); TEAMSTAGE_TEST_LOG_DIR keeps both nodes' logs. Replayed from before
 * migration 013 (e8f3284^), the old node still logs "cached plan must not change result type" inside
 * transactions (docs/operations.md, "Upgrades": such releases are upgraded stopped). This release, once it is
 * the previous one, no longer can: inside a transaction it sends a `select *` / `returning *` unnamed, so an
 * added column never meets a stale plan there (src/db/pg-prepared-statements.ts, its unit test).
 * Bounded: two nodes, four runs, each wait with its own limit (about a minute on a 2-core machine).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { GatedRuns, passAndCallBack, GATED_HMAC_KEY } from '../helpers/gated-runs.js';
import { HttpClient } from '../helpers/http-client.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { freePort } from '../helpers/postgres-server.js';
import { checkOutRelease, previousReleaseCommit, type ReleaseCheckout } from '../helpers/previous-release.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl } from '../helpers/test-app.js';

describe('rolling upgrade: the previous release keeps serving beside a new node that migrated (postgres)', { skip: !process.env.TEAMSTAGE_TEST_PG_URL, timeout: 600_000 }, () => {
  const nodes: ServerProcess[] = [];
  const clients: HttpClient[] = [];
  let checkout: ReleaseCheckout | undefined;
  let service: MockTaskService | undefined;
  let drop: (() => Promise<void>) | undefined;
  after(async () => {
    // TEAMSTAGE_TEST_LOG_DIR: keep each node's output (to read why a replay of an older release failed).
    const logDir = process.env.TEAMSTAGE_TEST_LOG_DIR;
    if (logDir) nodes.forEach((node, index) => fs.writeFileSync(path.join(logDir, `rolling-upgrade-node${index}.log`), node.output()));
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await Promise.all(clients.map((client) => client.close()));
    await service?.close();
    await drop?.();
    checkout?.remove();
  });

  it('creates runs and deliveries on both nodes with no 5xx, and every gated run passes', async () => {
    checkout = checkOutRelease(previousReleaseCommit());
    const database = await freshDatabaseUrl('postgres');
    drop = database.drop;
    service = await MockTaskService.start({ hmacKey: GATED_HMAC_KEY, respond: passAndCallBack });
    const siteToken = randomBytes(24).toString('hex');
    const envFor = (port: number) => ({
      DATABASE_URL: database.url, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`, TEAMSTAGE_RATE_LIMIT: '0',
      LOG_LEVEL: 'info', TEAMSTAGE_JOB_POLL: '0.5',
    });

    // The cluster as it runs before the upgrade: one node of the previous release, with a gated run of its own.
    const oldPort = await freePort();
    nodes.push(await startServerProcess(envFor(oldPort), { port: oldPort, root: checkout.dir, readyTimeoutMs: 60_000 }));
    const oldClient = new HttpClient(nodes[0]!.url, 4);
    clients.push(oldClient);
    const runs = await GatedRuns.setUp(oldClient, siteToken, service.url);
    const before = await runs.createRun(oldClient, 'before-upgrade');
    await runs.waitForStage(oldClient, before, 'passed', 60_000);

    // The first node of this build migrates the shared database while the old one serves.
    const newPort = await freePort();
    nodes.push(await startServerProcess(envFor(newPort), { port: newPort, readyTimeoutMs: 60_000 }));
    const newClient = new HttpClient(nodes[1]!.url, 4);
    clients.push(newClient);
    const applied = [...nodes[1]!.output().matchAll(/"msg":"migration applied","migration":"([^"]+)"/g)].map((match) => match[1]);
    assert.ok(applied.length > 0, `the new node migrated the database (previous release ${checkout.commit.slice(0, 12)}): ${nodes[1]!.output().slice(0, 2000)}`);

    // Side by side: runs made on each node, read on both; deliveries go out from whichever node claims them.
    const made: string[] = [before];
    for (const [index, client] of [oldClient, newClient, oldClient, newClient].entries()) made.push(await runs.createRun(client, `during-${index}`));
    for (const runId of made) {
      for (const client of [oldClient, newClient]) {
        await runs.waitForStage(client, runId, 'passed', 60_000);
        const run = await runs.call(client, 'GET', `/runs/${runId}?include=plan`);
        await runs.call(client, 'GET', `/plans/${run.data.relationships.plan.data.id}`);
      }
    }
    assert.deepEqual(runs.serverErrors(), [], 'no request answered 5xx on either node');
    for (const node of nodes) assert.doesNotMatch(node.output(), /"level":50/, `no error logged by ${node.url}: ${node.output().slice(-3000)}`);
    assert.ok(service.requests.filter((request) => request.json?.stage === 'post_plan').length >= made.length, 'every run was delivered');
  });
});
