/**
 * Issue 34, fair shares of the work lane, as a mechanism: while one organization's backlog holds every slot
 * of the lane, another organization's job enqueued after it takes the next slot that frees: it waits for one
 * work job, not for the backlog. Jobs of no organization (NO_ORGANIZATION: maintenance, and jobs that nodes of
 * an earlier release enqueue during a rolling upgrade) take their turn the same way.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import pino from 'pino';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { NO_ORGANIZATION } from '../../src/jobs/job-queue.js';
import { Jobs } from '../../src/jobs/jobs.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const silent = pino({ level: 'silent' });
const SLOTS = 2;

for (const dialect of testDialects()) {
  describe(`the work lane takes turns while a backlog holds its slots (${dialect})`, () => {
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

    for (const latecomer of ['b', NO_ORGANIZATION]) {
      it(`a job of ${latecomer === NO_ORGANIZATION ? 'no organization' : 'another organization'} enqueued behind a backlog takes the next slot that frees`, async () => {
        // The lane as the server configures it by default: every slot may go to one organization.
        const jobs = new Jobs(handle, { concurrency: SLOTS, pollMs: 60_000, leaseMs: 10_000, databaseUrl: url }, silent);
        const started: string[] = [];
        const finish: Array<() => void> = [];
        jobs.register('test.work', async (payload: { name: string }) => {
          started.push(payload.name);
          await new Promise<void>((resolve) => finish.push(resolve));
        });
        try {
          await jobs.enqueueAll(handle.db, Array.from({ length: 40 }, (_, n) => ({ kind: 'test.work', payload: { name: `a${n}` }, organizationName: 'a' })));
          jobs.start();
          await waitUntil(() => started.length === SLOTS, 5000, 'the backlog did not fill the lane');
          await jobs.enqueue(handle.db, { kind: 'test.work', payload: { name: 'late' }, organizationName: latecomer });
          finish.shift()!(); // one job of the backlog ends: one slot frees
          await waitUntil(() => started.length === SLOTS + 1, 5000, 'the freed slot was not taken');
          assert.equal(started[SLOTS], 'late', `the freed slot went to ${started[SLOTS]}, not to the job enqueued behind the backlog`);
          assert.deepEqual(started.slice(0, SLOTS), ['a0', 'a1'], 'the backlog in time order');
        } finally {
          for (const release of finish.splice(0)) release();
          // The rest of the backlog ends at once.
          jobs.register('test.work', async () => {});
          await jobs.stop();
        }
      });
    }
  });
}
