import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { NO_ORGANIZATION, type NewJob } from '../../src/jobs/job-queue.js';
import { parseJobNotification } from '../../src/jobs/job-notification.js';
import { Jobs } from '../../src/jobs/jobs.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const silent = pino({ level: 'silent' });

/** A delivery-lane job of `organization`, due `secondsAgo` seconds ago (older first in time order). */
function delivery(organization: string, n: number, secondsAgo: number): NewJob {
  return { kind: 'test.deliver', payload: { organization, n }, lane: 'delivery', organizationName: organization, runAt: new Date(Date.now() - secondsAgo * 1000) };
}

const organizationsOf = (claimed: Array<{ payload: unknown }>) => claimed.map((job) => (job.payload as { organization: string }).organization).sort().join(',');

for (const dialect of testDialects()) {
  describe(`job lanes and fair delivery claims (${dialect})`, () => {
    let handle: DatabaseHandle;
    let url: string;
    let drop: () => Promise<void>;
    before(async () => {
      ({ url, drop } = await freshDatabaseUrl(dialect));
      handle = openDatabase(url);
      await migrateToLatest(handle);
    });
    afterEach(async () => {
      await handle.db.deleteFrom('jobs').execute();
    });
    after(async () => {
      await handle.close();
      await drop();
    });

    it('claims deliveries in turn across organizations, each within its share on the node, older first among equals', async () => {
      const jobs = new Jobs(handle, { concurrency: 8, pollMs: 200, leaseMs: 5000, databaseUrl: url }, silent);
      // A's ten jobs are all older than B's and C's: in time order they would take every slot.
      await jobs.enqueueAll(handle.db, [
        ...Array.from({ length: 10 }, (_, n) => delivery('a', n, 60 - n)),
        delivery('b', 0, 20),
        delivery('b', 1, 19),
        delivery('c', 0, 10),
      ]);
      const claim = (limit: number, held: Record<string, number>) =>
        jobs.queue.claim('node-1', limit, 5000, 'delivery', { perOrganization: 3, held: new Map(Object.entries(held)) });
      const first = await claim(5, {});
      assert.equal(organizationsOf(first), 'a,a,b,b,c', 'first jobs of each organization, then second ones');
      assert.deepEqual(first.map((job) => job.organizationName).sort(), ['a', 'a', 'b', 'b', 'c']);
      const second = await claim(10, { a: 2, b: 2, c: 1 });
      assert.equal(organizationsOf(second), 'a', 'a fills its share of 3, and no more');
      assert.equal((second[0]!.payload as { n: number }).n, 2, 'with its oldest waiting job');
      assert.equal((await claim(10, { a: 3, b: 2, c: 1 })).length, 0, 'every organization with jobs waiting is at its share');
      assert.equal(organizationsOf(await claim(10, { a: 1, b: 2, c: 1 })), 'a,a', 'two of a finished: two more of its jobs');
      // Another node runs nothing yet: its own share.
      assert.equal(organizationsOf(await jobs.queue.claim('node-2', 10, 5000, 'delivery', { perOrganization: 3, held: new Map() })), 'a,a,a');
    });

    it('with more organizations waiting than free slots, those running the fewest win, then those waiting longest', async () => {
      const jobs = new Jobs(handle, { concurrency: 8, pollMs: 200, leaseMs: 5000, databaseUrl: url }, silent);
      // e waits longest but already runs two; d runs one; a, b and c none, c waiting longest of them.
      await jobs.enqueueAll(handle.db, [delivery('e', 0, 90), delivery('d', 0, 80), delivery('a', 0, 30), delivery('b', 0, 20), delivery('c', 0, 40)]);
      const claimed = await jobs.queue.claim('node-1', 3, 5000, 'delivery', { perOrganization: 3, held: new Map([['e', 2], ['d', 1]]) });
      assert.equal(organizationsOf(claimed), 'a,b,c');
      assert.equal(organizationsOf(await jobs.queue.claim('node-1', 1, 5000, 'delivery', { perOrganization: 3, held: new Map([['e', 2], ['d', 1]]) })), 'd');
    });

    it('keeps lanes apart: a claim takes only its own lane', async () => {
      const jobs = new Jobs(handle, { concurrency: 8, pollMs: 200, leaseMs: 5000, databaseUrl: url }, silent);
      await jobs.enqueueAll(handle.db, [delivery('a', 0, 5), { organizationName: NO_ORGANIZATION, kind: 'test.work', payload: {}, runAt: new Date(Date.now() - 1000) }]);
      const work = await jobs.queue.claim('node-1', 10, 5000);
      assert.deepEqual(work.map((job) => job.kind), ['test.work']);
      const deliveries = await jobs.queue.claim('node-1', 10, 5000, 'delivery', { perOrganization: 3, held: new Map() });
      assert.deepEqual(deliveries.map((job) => job.kind), ['test.deliver']);
    });

    it('runs a job enqueued for later at its time, though its lane sleeps for a minute between polls', async () => {
      const jobs = new Jobs(handle, { concurrency: 2, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
      const ranAt: number[] = [];
      jobs.register('test.later', async () => {
        ranAt.push(Date.now());
      });
      try {
        jobs.start();
        await new Promise((resolve) => setTimeout(resolve, 100)); // asleep until the poll
        const due = Date.now() + 300;
        await jobs.enqueueAll(handle.db, [
          { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: {}, runAt: new Date(due + 3_600_000) }, // an hour away: wakes nothing
          { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: {}, runAt: new Date(due) },
        ]);
        await waitUntil(() => ranAt.length === 1, 3000, 'the job did not run at its time');
        assert.ok(ranAt[0]! >= due - 5, `ran ${due - ranAt[0]!} ms early`);
      } finally {
        await jobs.stop();
      }
    });

    it('runs jobs enqueued for later each at its time, though an enqueue names only the earliest and the lane polls once a minute', async () => {
      const jobs = new Jobs(handle, { concurrency: 2, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
      const ranAt = new Map<string, number>();
      jobs.register('test.later', async (payload: { name: string }) => {
        ranAt.set(payload.name, Date.now());
      });
      try {
        jobs.start();
        await new Promise((resolve) => setTimeout(resolve, 100)); // asleep until the poll
        const first = Date.now() + 300;
        const second = first + 400;
        // One enqueue: its wake-up says only when the first is due; the second is found in the table.
        await jobs.enqueueAll(handle.db, [
          { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: { name: 'first' }, runAt: new Date(first) },
          { organizationName: NO_ORGANIZATION, kind: 'test.later', payload: { name: 'second' }, runAt: new Date(second) },
        ]);
        await waitUntil(() => ranAt.size === 2, 3000, `ran: ${[...ranAt.keys()].join(', ')}`);
        assert.ok(ranAt.get('first')! >= first - 5 && ranAt.get('second')! >= second - 5, 'ran early');
        assert.ok(ranAt.get('second')! < second + 1000, `the second ran ${ranAt.get('second')! - second} ms late`);
      } finally {
        await jobs.stop();
      }
    });

    it('looks at the table for the next due job only when it may have changed unseen, not on every wake-up', async () => {
      const jobs = new Jobs(handle, { concurrency: 4, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
      // Looks are counted when they answer: one still on its way may yet see a job enqueued after it began.
      let looks = 0;
      let looksAnswered = 0;
      const nextRunAt = jobs.queue.nextRunAt.bind(jobs.queue);
      jobs.queue.nextRunAt = async (lane, after) => {
        if (lane !== 'work') return nextRunAt(lane, after);
        looks += 1;
        try {
          return await nextRunAt(lane, after);
        } finally {
          looksAnswered += 1;
        }
      };
      // PostgreSQL's listener wakes every lane without saying why once it is connected: each such wake-up may look.
      let uninformed = 0;
      const wake = jobs.worker.wake;
      jobs.worker.wake = (due) => {
        if (!due) uninformed += 1;
        wake(due);
      };
      let ran = 0;
      jobs.register('test.work', async () => {
        ran += 1;
      });
      try {
        jobs.start();
        // Settled first: the look at start has answered and, on PostgreSQL, the listener is connected (its
        // uninformed wake-up has been looked into). A look racing an enqueue may find that job and rightly
        // look again once it is due; that is not what this test counts.
        const listening = dialect === 'postgres';
        await waitUntil(() => looksAnswered >= 1 && (!listening || uninformed >= 1) && looksAnswered === looks && looks >= 1 + uninformed, 5000, 'the lane did not settle after start');
        const settled = looks;
        const uninformedAtStart = uninformed;
        // Each enqueue says when its job is due, so twenty wake-ups need no look at the table.
        for (let n = 1; n <= 20; n++) {
          await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.work', payload: { n } });
          await waitUntil(() => ran === n, 1000, `job ${n} did not run`);
        }
        const uninformedSince = uninformed - uninformedAtStart;
        assert.ok(looks - settled <= 2 * uninformedSince, `${looks - settled} looks for ${uninformedSince} uninformed wake-ups (a reconnecting listener)`);
        // A wake-up that says nothing (a notification without a lane) makes it look again.
        const before = looks;
        jobs.worker.wake();
        await waitUntil(() => looks === before + 1, 1000, 'an uninformed wake-up did not look at the table');
      } finally {
        await jobs.stop();
      }
    });

    it('jobs finishing in one event-loop turn share one claim for the slots they free', async () => {
      const jobs = new Jobs(handle, { concurrency: 2, delivery: { concurrency: 8, perOrganization: 3 }, pollMs: 60_000, leaseMs: 10_000, databaseUrl: url }, silent);
      const claims: number[] = [];
      const claim = jobs.queue.claim.bind(jobs.queue);
      jobs.queue.claim = async (nodeId, limit, leaseMs, lane, shares) => {
        const claimed = await claim(nodeId, limit, leaseMs, lane, shares);
        if (lane === 'delivery' && claimed.length > 0) claims.push(claimed.length);
        return claimed;
      };
      let release!: () => void;
      const network = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      jobs.register('test.deliver', async () => {
        started += 1;
        await network;
        // Three answers read in one poll for I/O: each in a callback of its own, within one event-loop turn.
        await new Promise((resolve) => setImmediate(resolve));
      });
      try {
        jobs.start();
        await jobs.enqueueAll(handle.db, Array.from({ length: 6 }, (_, n) => delivery('a', n, 30 - n)));
        await waitUntil(() => started === 3, 3000, 'a did not start its share');
        release();
        await waitUntil(() => started === 6, 3000, `only ${started} of 6 deliveries started`);
        assert.deepEqual(claims, [3, 3], 'one claim for the share, one for the three slots freed together');
      } finally {
        await jobs.stop();
      }
    });

    it('PostgreSQL: an insert notifies, per lane, when its earliest job is due; a statement inserting nothing wakes every lane', { skip: dialect !== 'postgres' }, async () => {
      const jobs = new Jobs(handle, { concurrency: 2, pollMs: 60_000, leaseMs: 5000, databaseUrl: url }, silent);
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      const payloads: string[] = [];
      listener.on('notification', (message) => payloads.push(message.payload ?? ''));
      await listener.query('listen teamstage_jobs');
      try {
        const soon = new Date(Date.now() + 1000);
        const later = new Date(Date.now() + 3_600_000);
        await jobs.enqueueAll(handle.db, [
          { organizationName: NO_ORGANIZATION, kind: 'test.deadline', payload: {}, runAt: later, dedupeKey: 'deadline' },
          { organizationName: NO_ORGANIZATION, kind: 'test.work', payload: {}, runAt: soon },
          { ...delivery('a', 0, 0), runAt: later },
        ]);
        await waitUntil(() => payloads.length >= 2, 3000, `notifications: ${JSON.stringify(payloads)}`);
        assert.deepEqual(payloads.sort(), [`delivery ${later.toISOString()}`, `work ${soon.toISOString()}`]);
        payloads.length = 0;
        await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.deadline', payload: {}, runAt: later, dedupeKey: 'deadline' }); // meets its key
        await waitUntil(() => payloads.length >= 1, 3000, 'no notification');
        assert.deepEqual(payloads, ['']);
      } finally {
        await listener.end();
      }
    });

    it('runs database work while every delivery slot waits on the network, and gives another organization a slot at once', async () => {
      const jobs = new Jobs(handle, { concurrency: 2, delivery: { concurrency: 4, perOrganization: 2 }, pollMs: 60_000, leaseMs: 10_000, databaseUrl: url }, silent);
      let release!: () => void;
      const network = new Promise<void>((resolve) => (release = resolve));
      const running = new Map<string, number>();
      let mostOfA = 0;
      const started: string[] = [];
      jobs.register('test.deliver', async (payload: { organization: string }) => {
        started.push(payload.organization);
        running.set(payload.organization, (running.get(payload.organization) ?? 0) + 1);
        mostOfA = Math.max(mostOfA, running.get('a') ?? 0);
        await network; // a remote that does not answer
        running.set(payload.organization, running.get(payload.organization)! - 1);
      });
      let workDone = 0;
      jobs.register('test.work', async () => {
        workDone += 1;
      });
      try {
        try {
          jobs.start();
          await jobs.enqueueAll(handle.db, Array.from({ length: 10 }, (_, n) => delivery('a', n, 30 - n)));
          await waitUntil(() => (running.get('a') ?? 0) === 2, 3000, 'a did not start its share');
          await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.work', payload: {} });
          await waitUntil(() => workDone === 1, 1000, 'database work waited behind deliveries');
          await jobs.enqueue(handle.db, delivery('b', 0, 0));
          await waitUntil(() => (running.get('b') ?? 0) === 1, 1000, "b's delivery waited behind a's");
          assert.equal(mostOfA, 2, 'a never held more than its share');
        } finally {
          release();
        }
        // With a minute's poll, a's backlog drains only if each finished job frees its slot at once.
        await waitUntil(() => started.length === 11, 5000, `only ${started.length} of 11 deliveries ran`);
        await waitUntil(async () => (await jobs.queue.count()) === 0, 5000, 'finished jobs were not deleted');
      } finally {
        await jobs.stop();
      }
      assert.equal(mostOfA, 2, 'a never held more than its share, also while its backlog drained');
    });

    it('the policy lane renews the leases of what it runs: an evaluation that outlives several leases runs once, though another node polls', async () => {
      // A lease of 300 ms, two nodes polling every 50 ms: without renewal the other node takes the job over after 300 ms.
      const options = { concurrency: 2, policy: { concurrency: 4, perOrganization: 2, renewLeases: true }, pollMs: 50, leaseMs: 300, databaseUrl: url };
      const nodes = [new Jobs(handle, options, silent), new Jobs(handle, options, silent)];
      const runs = new Map<string, number>();
      let release!: () => void;
      const longEvaluation = new Promise<void>((resolve) => (release = resolve));
      for (const node of nodes) {
        node.register('test.evaluate', async (payload: { organization: string }) => {
          runs.set(payload.organization, (runs.get(payload.organization) ?? 0) + 1);
          await longEvaluation;
        });
      }
      const evaluation = (organization: string): NewJob => ({ kind: 'test.evaluate', payload: { organization }, lane: 'policy', organizationName: organization });
      try {
        for (const node of nodes) node.start();
        await nodes[0]!.enqueueAll(handle.db, [evaluation('a'), evaluation('b')]);
        await waitUntil(() => runs.has('a') && runs.has('b'), 3000, 'the evaluations did not start');
        // Four leases long: the time is the mechanism under test, nothing to wait for instead.
        await new Promise((resolve) => setTimeout(resolve, 1200));
        assert.deepEqual([...runs.entries()].sort(), [['a', 1], ['b', 1]], 'each running evaluation ran once');
      } finally {
        release();
      }
      await waitUntil(async () => (await nodes[0]!.queue.count()) === 0, 5000, 'finished jobs were not deleted');
      await Promise.all(nodes.map((node) => node.stop()));
      assert.deepEqual([...runs.entries()].sort(), [['a', 1], ['b', 1]]);
    });
  });
}

describe('job notifications (PostgreSQL wake-ups)', () => {
  it('say when the earliest inserted job of a lane is due; anything else wakes every lane', () => {
    assert.deepEqual(parseJobNotification('delivery 2030-01-02T03:04:05.678Z'), new Map([['delivery', new Date('2030-01-02T03:04:05.678Z')]]));
    assert.deepEqual(parseJobNotification('work 1970-01-01T00:00:00.000Z'), new Map([['work', new Date(0)]]));
    for (const payload of [undefined, '', 'work', 'elsewhere 2030-01-02T03:04:05.678Z', 'work not-a-time']) {
      assert.equal(parseJobNotification(payload), undefined, String(payload));
    }
  });
});
