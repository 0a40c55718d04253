import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PreparedStatements, preparingPool } from '../../src/db/pg-prepared-statements.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

describe('prepared statement names', () => {
  it('names each distinct text once, the same way every time, and stops naming at capacity', () => {
    const prepared = new PreparedStatements(2);
    const first = prepared.config('select 1', []);
    assert.match(first.name ?? '', /^ts0_[0-9a-f]{16}$/);
    assert.equal(prepared.config('select 1', [1]).name, first.name);
    assert.notEqual(prepared.config('select 2', []).name, first.name);
    assert.equal(prepared.config('select 3', []).name, undefined, 'over capacity: sent unnamed');
  });
});

describe('prepared statements on PostgreSQL', { skip: !testDialects().includes('postgres') }, () => {
  let url: string;
  let drop: () => Promise<void>;
  let raw: pg.Pool;
  let db: Kysely<any>;
  before(async () => {
    ({ url, drop } = await freshDatabaseUrl('postgres'));
    raw = new pg.Pool({ connectionString: url, max: 1 }); // one connection: it surely holds the prepared statement
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool: preparingPool(raw) }) });
    await sql`create table widgets (id integer primary key)`.execute(db);
    await db.insertInto('widgets').values({ id: 1 }).execute();
  });
  after(async () => {
    await db.destroy();
    await drop();
  });

  const otherNodeAddsColumn = async (column: string) => {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query(`alter table widgets add column ${column} text`);
    await other.end();
  };

  it('runs named and unnamed statements with their values, and answers their errors', async () => {
    const client = await raw.connect();
    try {
      for (const prepared of [new PreparedStatements(), new PreparedStatements(0)]) {
        const result = await prepared.query(client, 'select $1::int + $2::int as sum, $3::text as label', [2, 3, 'x'], false);
        assert.deepEqual(result.rows, [{ sum: 5, label: 'x' }]);
        await assert.rejects(prepared.query(client, 'select $1::int', ['not a number'], false), /invalid input syntax/);
      }
    } finally {
      client.release();
    }
  });

  it("survives another node's migration changing a table a prepared select * reads", async () => {
    assert.deepEqual(await db.selectFrom('widgets').selectAll().execute(), [{ id: 1 }]);
    await otherNodeAddsColumn('colour');
    assert.deepEqual(await db.selectFrom('widgets').selectAll().execute(), [{ id: 1, colour: null }]);
  });

  it('inside a transaction the stale statement fails that transaction only; the next one works', async () => {
    const read = () => db.transaction().execute((trx) => trx.selectFrom('widgets').selectAll().execute());
    assert.deepEqual(await read(), [{ id: 1, colour: null }]);
    await otherNodeAddsColumn('size');
    await assert.rejects(read(), /cached plan must not change result type/);
    assert.deepEqual(await read(), [{ id: 1, colour: null, size: null }]);
  });
});
