import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { LoneNodeLease } from '../../src/db/lone-node-lease.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const FAST = { leaseMs: 600, checkEveryMs: 100, heartbeatTtlSeconds: 1 };

// The lease exists for PostgreSQL only (SQLite is one process).
describe('lone node lease (postgres)', { skip: !testDialects().includes('postgres') }, () => {
  let handle: DatabaseHandle;
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  const leases: LoneNodeLease[] = [];
  const lease = (id: string) => {
    const created = new LoneNodeLease(pool, id, FAST);
    leases.push(created);
    return created;
  };
  before(async () => {
    const database = await freshDatabaseUrl('postgres');
    drop = database.drop;
    handle = openDatabase(database.url);
    await migrateToLatest(handle);
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
  });
  after(async () => {
    for (const each of leases) await each.leave();
    await pool.end();
    await handle.close();
    await drop();
  });

  it('a node joining an empty list is alone at once; one joining a live node waits a lease and ends the other one\'s', async () => {
    const first = lease('node-first');
    const started = performance.now();
    await first.join();
    assert.ok(performance.now() - started < FAST.leaseMs, 'nobody to wait for');
    assert.equal(first.isAlone(), true);
    first.start();

    const second = lease('node-second');
    const joinStarted = performance.now();
    await second.join();
    assert.ok(performance.now() - joinStarted >= FAST.leaseMs, 'a live node may still believe it is alone: wait one lease');
    assert.equal(first.isAlone(), false, 'the first node saw the second during that wait');
    assert.equal(second.isAlone(), false);
    second.start();

    await second.leave();
    await waitUntil(() => first.isAlone(), 1000);
    await first.leave();
  });

  it('a node alone again after another left is alone in a new epoch: its write count says nothing across the gap', async () => {
    const first = lease('node-epoch-first');
    await first.join();
    first.start();
    const epoch = first.aloneEpoch();
    assert.notEqual(epoch, undefined);
    await new Promise((resolve) => setTimeout(resolve, 3 * FAST.checkEveryMs));
    assert.equal(first.aloneEpoch(), epoch, 'renewed without a gap: the same epoch');
    const second = lease('node-epoch-second');
    await second.join();
    assert.equal(first.aloneEpoch(), undefined, 'not alone: no epoch at all');
    await second.leave();
    await waitUntil(() => first.isAlone(), 1000);
    assert.notEqual(first.aloneEpoch(), undefined);
    assert.notEqual(first.aloneEpoch(), epoch);
    await first.leave();
  });

  it('a node that died without leaving keeps the others from caching until its heartbeat expires', async () => {
    const survivor = lease('node-survivor');
    await survivor.join();
    survivor.start();
    await pool.query(`insert into cluster_nodes (id, expires_at) values ('node-killed', now() + interval '1 second')`);
    await waitUntil(() => !survivor.isAlone(), 1000);
    const waited = await waitUntil(() => survivor.isAlone(), 3000);
    assert.ok(waited > 300, `alone again only once the dead node's heartbeat expired (after ${Math.round(waited)} ms)`);
    await survivor.leave();
  });

  it('stops believing it is alone at the first check that cannot reach the database', async () => {
    const ownPool = new pg.Pool({ connectionString: handle.pool!.options.connectionString, max: 2 });
    const cut = new LoneNodeLease(ownPool, 'node-cut', FAST);
    await cut.join();
    cut.start();
    assert.equal(cut.isAlone(), true);
    await ownPool.end(); // every later check fails
    const waited = await waitUntil(() => !cut.isAlone(), FAST.leaseMs);
    assert.ok(waited < FAST.leaseMs / 2, `not alone after ${Math.round(waited)} ms, before the lease would have run out`);
    await cut.leave(); // its own delete fails quietly with the pool gone
    await pool.query(`delete from cluster_nodes where id = 'node-cut'`);
  });
});
