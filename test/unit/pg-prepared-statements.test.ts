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

  it('inside a transaction sends a text whose * expands to columns unnamed; column lists and count(*) stay named', () => {
    const prepared = new PreparedStatements();
    for (const text of ['select * from "runs" where "id" = $1', 'select "runs".*, "w"."name" from "runs" join "workspaces" as "w" on true', 'update "runs" set "status" = $1 returning *']) {
      assert.equal(prepared.config(text, [], true).name, undefined, text);
      assert.match(prepared.config(text, [], false).name ?? '', /^ts0_/, `${text}: named outside a transaction`);
    }
    for (const text of ['select "id", "status" from "runs"', 'select count(*) as "count" from "runs"']) {
      assert.match(prepared.config(text, [], true).name ?? '', /^ts0_/, text);
    }
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

  it("inside a transaction, select * and returning * still answer after another node's migration (this release as the previous one)", async () => {
    // Each statement runs twice on the one connection, before and after the column arrives, as an old node's would.
    const read = () =>
      db.transaction().execute(async (trx) => ({
        all: await trx.selectFrom('widgets').selectAll().execute(),
        ids: await trx.selectFrom('widgets').select('id').execute(),
        touched: await trx.updateTable('widgets').set({ id: 1 }).where('id', '=', 1).returningAll().execute(),
      }));
    assert.deepEqual(await read(), { all: [{ id: 1, colour: null }], ids: [{ id: 1 }], touched: [{ id: 1, colour: null }] });
    await otherNodeAddsColumn('size');
    assert.deepEqual(await read(), { all: [{ id: 1, colour: null, size: null }], ids: [{ id: 1 }], touched: [{ id: 1, colour: null, size: null }] });
  });
});
