/**
 * PostgreSQL: what wakes a node's lanes for a job it enqueued (issue 39's fan-out and gate latency). The
 * commit's NOTIFY is the only wake-up: a wake-up of the node's own as well made a second claim per enqueue,
 * and an enqueue inside a longer transaction claimed before the commit and found nothing. Claims are
 * counted from every statement the node runs (the database handle's query log).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { NO_ORGANIZATION } from '../../src/jobs/job-queue.js';
import { Jobs } from '../../src/jobs/jobs.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const silent = pino({ level: 'silent' });
/** The first of a claim's statements (fair-claim.ts: the organizations with due jobs in the lane). */
const isClaim = (sql: string) => sql.includes('with recursive organizations');

describe('PostgreSQL: a job enqueued in a transaction is claimed once, after its commit', { skip: !testDialects().includes('postgres') }, () => {
  let handle: DatabaseHandle;
  let url: string;
  let drop: () => Promise<void>;
  const statements: string[] = [];
  before(async () => {
    ({ url, drop } = await freshDatabaseUrl('postgres'));
    handle = openDatabase(url, { onSlowQuery: (sql) => statements.push(sql), slowQueryMs: 0 });
    await migrateToLatest(handle);
  });
  after(async () => {
    await handle.close();
    await drop();
  });

  it('makes no claim while the enqueueing transaction is open, and one when it commits', async () => {
    // No catch-up poll within the test: only wake-ups claim.
    const jobs = new Jobs(handle, { concurrency: 2, pollMs: 600_000, leaseMs: 5000, databaseUrl: url }, silent);
    const ran: string[] = [];
    jobs.register('test.wakeup', async (payload: { n: string }) => {
      ran.push(payload.n);
    });
    jobs.start();
    try {
      // The node listens (its LISTEN has reached the server; its catch-up claim follows at once and is counted
      // before the measurement, by settledClaimCount), and a first job has gone through.
      await waitUntil(
        async () => {
          const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and query ilike 'listen teamstage_jobs%'`.execute(handle.db);
          return Number(rows[0]!.n) > 0;
        },
        15_000,
        'the node never listened for jobs',
      );
      await jobs.enqueue(handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.wakeup', payload: { n: 'warm-up' } });
      await waitUntil(() => ran.includes('warm-up'), 15_000, 'the warm-up job never ran');
      const claimsBefore = await settledClaimCount();

      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      const transaction = handle.db.transaction().execute(async (trx) => {
        await jobs.enqueue(trx, { organizationName: NO_ORGANIZATION, kind: 'test.wakeup', payload: { n: 'in a transaction' } });
        await committing;
      });
      try {
        // Several turns of the event loop and a query of our own after the enqueue, the transaction still
        // open: a wake-up of the node's own would have claimed by now (a turn after the enqueue).
        for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
        await handle.db.selectFrom('jobs').select('id').execute();
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(statements.filter(isClaim).length, claimsBefore, 'a claim was made before the enqueueing transaction committed');
      } finally {
        commit(); // also when the assertion failed: an open transaction would hold the pool's close forever
        await transaction;
      }
      await waitUntil(() => ran.includes('in a transaction'), 15_000, 'the job enqueued in a transaction never ran');
      assert.equal((await settledClaimCount()) - claimsBefore, 1, 'one claim: the commit NOTIFY’s');
    } finally {
      await jobs.stop();
    }
  });

  /** The number of claims made so far, once no claim has been added for a while (one still on its way counts). */
  async function settledClaimCount(): Promise<number> {
    let count = -1;
    await waitUntil(
      async () => {
        const now = statements.filter(isClaim).length;
        const settled = now === count;
        count = now;
        return settled;
      },
      15_000,
      'claims never stopped',
      200,
    );
    return count;
  }
});
