import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import { countingPool } from '../../src/db/pg-write-counter.js';

/** What the pool's client is given: a pg Query, which the client answers through its callback. */
type Submitted = { callback: (error: Error | undefined, result: unknown) => void };
const EMPTY = { rows: [], rowCount: 0 };

describe('write count of the PostgreSQL pool', () => {
  it('moves when a write is sent and again when it completes; plain selects leave it alone', async () => {
    let finish = () => {};
    const client = {
      query: (query: Submitted) => {
        finish = () => query.callback(undefined, EMPTY);
      },
      release: () => {},
    };
    const counted = countingPool({ connect: async () => client } as unknown as pg.Pool);
    const connection = await counted.pool.connect();
    const select = connection.query('select 1', []);
    finish();
    await select;
    assert.equal(counted.writes(), 0);
    const commit = connection.query('commit', []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(counted.writes(), 1, 'a response computed during the commit has an outdated count');
    finish();
    await commit;
    assert.equal(counted.writes(), 2, 'a read after the commit returned sees a newer count still');
  });
});

describe('identity write count of the PostgreSQL pool', () => {
  const answering = () => ({ query: (query: Submitted) => setImmediate(() => query.callback(undefined, EMPTY)), release: () => {} });

  it('moves for writes to identity tables only, and again for the COMMIT that publishes them', async () => {
    const counted = countingPool({ connect: async () => answering() } as unknown as pg.Pool);
    const connection = await counted.pool.connect();
    await connection.query('update "runs" set "status" = $1', []);
    await connection.query('begin', []);
    await connection.query('insert into "jobs" ("id") values ($1)', []);
    await connection.query('commit', []);
    assert.equal(counted.identityWrites(), 0, 'no identity table was written');
    assert.ok(counted.writes() > 0);

    await connection.query('begin', []);
    await connection.query('delete from "tokens" where "id" = $1', []);
    const afterDelete = counted.identityWrites();
    assert.equal(afterDelete, 2);
    await connection.query('commit', []);
    assert.equal(counted.identityWrites(), 4, 'other connections see the delete only from the commit on');
    await connection.query('begin', []);
    await connection.query('commit', []);
    assert.equal(counted.identityWrites(), 4, 'the next transaction wrote no identity table');
  });
});
