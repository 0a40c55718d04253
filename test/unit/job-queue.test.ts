import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { NO_ORGANIZATION } from '../../src/jobs/job-queue.js';
import { Jobs } from '../../src/jobs/jobs.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const silent = pino({ level: 'silent' });

for (const dialect of testDialects()) {
  describe(`durable jobs (${dialect})`, () => {
    let handle: DatabaseHandle;
    let url: string;
    let drop: () => Promise<void>;
    before(async () => {
      ({ url, drop } = await freshDatabaseUrl(dialect));
      handle = openDatabase(url);
      await migrateToLatest(handle);
    });
    after(async () => {
      await handle.close();
      await drop();
    });

    const makeJobs = (leaseMs = 5000) => new Jobs(handle, { concurrency: 8, pollMs: 200, leaseMs, databaseUrl: url }, silent);

    it('runs an enqueued job once and deletes it', async () => {
      const jobs = makeJobs();
      const seen: unknown[] = [];
      jobs.register('test.once', async (payload) => {
        seen.push(payload);
      });
      jobs.start();
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.once', payload: { n: 1 } });
      await waitUntil(() => seen.length === 1);
      await waitUntil(async () => (await jobs.queue.count('test.once')) === 0);
      await jobs.stop();
      assert.deepEqual(seen, [{ n: 1 }]);
    });

    it('does not run a job enqueued in a rolled-back transaction', async () => {
      const jobs = makeJobs();
      let ran = 0;
      jobs.register('test.rollback', async () => {
        ran += 1;
      });
      jobs.start();
      await assert.rejects(
        handle.db.transaction().execute(async (trx) => {
          await jobs.enqueue(trx, { organizationName: NO_ORGANIZATION, kind: 'test.rollback', payload: {} });
          throw new Error('roll back');
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await jobs.stop();
      assert.equal(ran, 0);
      assert.equal(await jobs.queue.count('test.rollback'), 0);
    });

    it('waits for runAt and keeps one job per dedupe key', async () => {
      const jobs = makeJobs();
      const ranAt: number[] = [];
      jobs.register('test.later', async () => {
        ranAt.push(Date.now());
      });
      jobs.start();
      const start = Date.now();
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: {}, runAt: new Date(start + 400), dedupeKey: 'k1' });
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: {}, runAt: new Date(start + 400), dedupeKey: 'k1' });
      await waitUntil(() => ranAt.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await jobs.stop();
      assert.equal(ranAt.length, 1);
      assert.ok(ranAt[0]! - start >= 390, `ran after ${ranAt[0]! - start} ms`);
    });

    it('enqueueAll inserts several jobs at once, skipping keys already queued and replacing only with replace', async () => {
      const jobs = makeJobs();
      const far = new Date(Date.now() + 60_000);
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'old' }, runAt: far, dedupeKey: 'b1' });
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'old' }, runAt: far, dedupeKey: 'b3' });
      await jobs.enqueueAll(handle.db, [
        { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'new' }, runAt: far, dedupeKey: 'b1' },
        { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'new' }, runAt: far, dedupeKey: 'b2' },
        { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'new' }, runAt: far },
        { organizationName: NO_ORGANIZATION, kind: 'test.batch', payload: { v: 'new' }, runAt: far, dedupeKey: 'b3', replace: true },
      ]);
      const rows = await handle.db.selectFrom('jobs').select(['dedupe_key', 'payload']).where('kind', '=', 'test.batch').execute();
      const byKey = Object.fromEntries(rows.map((row) => [row.dedupe_key ?? 'none', JSON.parse(row.payload).v]));
      assert.deepEqual(byKey, { b1: 'old', b2: 'new', none: 'new', b3: 'new' });
      await handle.db.deleteFrom('jobs').where('kind', '=', 'test.batch').execute();
    });

    it('retries a handler that throws', async () => {
      const jobs = makeJobs();
      let calls = 0;
      jobs.register('test.flaky', async () => {
        calls += 1;
        if (calls === 1) throw new Error('first try fails');
      });
      jobs.start();
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.flaky', payload: {} });
      await waitUntil(() => calls === 2);
      await waitUntil(async () => (await jobs.queue.count('test.flaky')) === 0);
      await jobs.stop();
    });

    it('hands a job to another worker once the first one’s lease expires, and two workers never share a claim', async () => {
      const dead = makeJobs(300);
      // A worker that claims and then "dies": claim without handling.
      await dead.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.takeover', payload: { v: 7 } });
      const claimed = await dead.queue.claim('node-dead', 10, 300);
      assert.equal(claimed.length, 1);
      const other = makeJobs(300);
      assert.equal((await other.queue.claim('node-other', 10, 300)).length, 0, 'a live lease is not claimable');
      const seen: unknown[] = [];
      other.register('test.takeover', async (payload) => {
        seen.push(payload);
      });
      other.start();
      await waitUntil(() => seen.length === 1, 3000);
      await other.stop();
      assert.deepEqual(seen, [{ v: 7 }]);
    });

    it('replace moves a pending job, and a job replaced while running survives its worker', async () => {
      const jobs = makeJobs();
      const far = new Date(Date.now() + 60_000);
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.replace', payload: { v: 1 }, runAt: far, dedupeKey: 'r1', replace: true });
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.replace', payload: { v: 2 }, runAt: new Date(), dedupeKey: 'r1', replace: true });
      assert.equal(await jobs.queue.count('test.replace'), 1, 'one job per key');
      const [claimed] = await jobs.queue.claim('node-a', 10, 5000);
      assert.deepEqual(claimed?.payload, { v: 2 }, 'the replacement is due now');
      // While node-a runs it, the job is moved to later: node-a finishing must not delete the new deadline.
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.replace', payload: { v: 3 }, runAt: far, dedupeKey: 'r1', replace: true });
      await jobs.queue.complete('node-a', claimed!.id);
      assert.equal(await jobs.queue.count('test.replace'), 1, 'the moved job stays');
      assert.equal((await jobs.queue.claim('node-b', 10, 5000)).length, 0, 'and waits for its new time');
      await handle.db.deleteFrom('jobs').where('kind', '=', 'test.replace').execute();
    });

    it('stop waits for the delete of a finished job before it gives back its leases', async () => {
      const jobs = makeJobs();
      let ran = 0;
      jobs.register('test.slow-delete', async () => {
        ran += 1;
      });
      // A slow database: the batched delete is still on its way when stop() begins.
      const complete = jobs.queue.complete.bind(jobs.queue);
      jobs.queue.complete = async (nodeId, ...ids) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        await complete(nodeId, ...ids);
      };
      jobs.start();
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.slow-delete', payload: {} });
      await waitUntil(() => ran === 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await jobs.stop();
      assert.equal(await jobs.queue.count('test.slow-delete'), 0, 'the finished job is gone, not released to run again');
    });

    it('deletes finished jobs one statement at a time: jobs finishing meanwhile go in the next one', async () => {
      const jobs = makeJobs();
      let ran = 0;
      jobs.register('test.group-delete', async (payload: { i: number }) => {
        await new Promise((resolve) => setTimeout(resolve, payload.i * 10));
        ran += 1;
      });
      let deletesInFlight = 0;
      let mostInFlight = 0;
      const deletes: number[] = [];
      const complete = jobs.queue.complete.bind(jobs.queue);
      jobs.queue.complete = async (nodeId, ...ids) => {
        deletesInFlight += 1;
        mostInFlight = Math.max(mostInFlight, deletesInFlight);
        deletes.push(ids.length);
        try {
          await new Promise((resolve) => setTimeout(resolve, 60));
          await complete(nodeId, ...ids);
        } finally {
          deletesInFlight -= 1;
        }
      };
      await jobs.enqueueAll(handle.db, Array.from({ length: 8 }, (_, i) => ({ organizationName: NO_ORGANIZATION, kind: 'test.group-delete', payload: { i } })));
      jobs.start();
      await waitUntil(() => ran === 8);
      await waitUntil(async () => (await jobs.queue.count('test.group-delete')) === 0);
      await jobs.stop();
      assert.equal(mostInFlight, 1, 'never two deletes at once');
      assert.equal(deletes.reduce((sum, n) => sum + n, 0), 8, 'every job deleted once');
      assert.ok(deletes.length < 8, `jobs share deletes (${deletes.join(', ')})`);
    });

    it('releases its leases on stop', async () => {
      const jobs = makeJobs(60_000);
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.release', payload: {} });
      const claimed = await jobs.queue.claim(jobs.worker.nodeId, 10, 60_000);
      assert.equal(claimed.length, 1);
      jobs.start();
      await jobs.stop();
      const again = await jobs.queue.claim('node-next', 10, 1000);
      assert.equal(again.length, 1, 'released job is claimable at once');
      await jobs.queue.complete('node-next', again[0]!.id);
    });
  });
}

describe('job worker on SQLite: the event loop is not held by a backlog of database-only jobs', () => {
  it('answers an HTTP request after a few jobs, not after the whole backlog', async () => {
    const { url, drop } = await freshDatabaseUrl('sqlite');
    const handle = openDatabase(url);
    await migrateToLatest(handle);
    const server = http.createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const jobs = new Jobs(handle, { concurrency: 32, pollMs: 200, leaseMs: 5000, databaseUrl: url }, silent);
    try {
      let done = 0;
      // Like a stage or run job on SQLite: queries that resolve at once, then ~2 ms of synchronous work.
      jobs.register('test.busy', async () => {
        await handle.db.selectFrom('jobs').select('id').limit(1).execute();
        const end = performance.now() + 2;
        while (performance.now() < end);
        done += 1;
      });
      await handle.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 200; i++) await jobs.enqueue(trx, { organizationName: NO_ORGANIZATION, kind: 'test.busy', payload: { i } });
      });
      const answered = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).then(async (response) => {
        await response.text();
        return done;
      });
      jobs.start();
      const doneWhenAnswered = await answered;
      assert.ok(doneWhenAnswered < 50, `the request waited for ${doneWhenAnswered} of 200 jobs`);
      await waitUntil(() => done === 200, 10_000);
    } finally {
      await jobs.stop();
      server.close();
      await handle.close();
      await drop();
    }
  });
});

describe('job wake-up on PostgreSQL', { skip: !testDialects().includes('postgres') }, () => {
  it("a job enqueued by one node wakes another node's worker at once (NOTIFY from the insert), long before its poll", async () => {
    const { url, drop } = await freshDatabaseUrl('postgres');
    const nodeA = openDatabase(url);
    const nodeB = openDatabase(url);
    await migrateToLatest(nodeA);
    const enqueuer = new Jobs(nodeA, { concurrency: 1, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
    const worker = new Jobs(nodeB, { concurrency: 1, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
    try {
      let ranAt = 0;
      worker.register('test.wake', async () => {
        ranAt = Date.now();
      });
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, 500)); // listening, and asleep for a minute
      const enqueuedAt = Date.now();
      await nodeA.db.transaction().execute((trx) => enqueuer.enqueue(trx, { organizationName: NO_ORGANIZATION, kind: 'test.wake', payload: {} }));
      await waitUntil(() => ranAt > 0, 5000);
      assert.ok(ranAt - enqueuedAt < 2000, `ran ${ranAt - enqueuedAt} ms after the enqueue`);
    } finally {
      await worker.stop();
      await nodeA.close();
      await nodeB.close();
      await drop();
    }
  });
});
