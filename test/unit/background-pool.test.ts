/**
 * On PostgreSQL the job worker's statements have connections of their own (src/db/background-pool.ts): a
 * request pool fully taken does not hold back background work, and background work in flight takes none of
 * the requests' connections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, POSTGRES_BACKGROUND_CONNECTIONS, type DatabaseHandle } from '../../src/db/database.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

describe('background work on PostgreSQL', { skip: !testDialects().includes('postgres') }, () => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabaseUrl('postgres');
    drop = fresh.drop;
    handle = openDatabase(fresh.url);
  });
  after(async () => {
    await handle.close();
    await drop();
  });

  const backendPid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0]!.pid;
  /** Every request connection busy until `release` is called (each in a transaction waiting on a lock). */
  async function holdRequestConnections(count: number) {
    const lockHolder = await handle.inBackground!(async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = handle.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(42)`.execute(trx);
        await released;
      });
      return { release, held };
    });
    // The holder has its lock before the requests queue on it.
    const lockHeld = async () => (await sql<{ held: number }>`select count(*)::int as held from pg_locks where locktype = 'advisory' and objid = 42 and granted`.execute(handle.db)).rows[0]!.held === 1;
    await waitUntil(lockHeld, 10_000, 'the holder never took its advisory lock');
    const waiting = Array.from({ length: count }, () => sql`select pg_advisory_lock_shared(42), pg_advisory_unlock_shared(42)`.execute(handle.db));
    return { release: async () => (lockHolder.release(), await lockHolder.held, await Promise.all(waiting)) };
  }

  it('runs on other connections than requests, and is answered while every request connection is taken', async () => {
    const requestPid = await backendPid();
    const backgroundPid = await handle.inBackground!(backendPid);
    assert.notEqual(backgroundPid, requestPid);

    const hold = await holdRequestConnections(10);
    let requestAnswered = false;
    const request = backendPid().then(() => (requestAnswered = true));
    // Background work still gets a connection and an answer while all ten request connections wait.
    const answered = await handle.inBackground!(() => Promise.race([backendPid().then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('timed out'), 4000))]));
    assert.equal(answered, 'answered');
    assert.equal(requestAnswered, false, 'the request pool was not full: the test proves nothing');
    await hold.release();
    await request;
  });

  it(`holds at most ${POSTGRES_BACKGROUND_CONNECTIONS} connections for background work, leaving the requests theirs`, async () => {
    const pids = await handle.inBackground!(() => Promise.all(Array.from({ length: 20 }, () => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(handle.db))));
    assert.ok(new Set(pids.map((result) => result.rows[0]!.pid)).size <= POSTGRES_BACKGROUND_CONNECTIONS);
  });
});
