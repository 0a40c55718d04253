import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { affectedRows, compiledOnce, compiledPerShape, definedColumns, fixed } from '../../src/db/compiled-query.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`queries compiled once (${dialect})`, () => {
    let handle: DatabaseHandle;
    let drop: () => Promise<void>;
    before(async () => {
      const database = await freshDatabaseUrl(dialect);
      drop = database.drop;
      handle = openDatabase(database.url);
      await migrateToLatest(handle);
      const now = new Date().toISOString();
      for (const name of ['alpha', 'beta', 'gamma']) {
        await handle.db.insertInto('organizations').values({ name, name_lower: name, email: `${name}@example.com`, feature_set: '{}', created_at: now, updated_at: now }).execute();
      }
    });
    after(async () => {
      await handle.close();
      await drop();
    });

    it('runs the same SQL with each call’s values, as the query built anew would', async () => {
      const db = handle.db;
      const byName = compiledOnce((p: { name: string }) => db.selectFrom('organizations').select(['name', 'email']).where('name', '=', p.name));
      for (const name of ['alpha', 'gamma', 'beta']) {
        const kept = (await byName(db, { name })).rows;
        const built = await db.selectFrom('organizations').select(['name', 'email']).where('name', '=', name).execute();
        assert.deepEqual(kept, built);
        assert.equal(kept[0]?.email, `${name}@example.com`);
      }
      assert.deepEqual((await byName(db, { name: 'nobody' })).rows, []);
    });

    it('writes inside a transaction, keeps fixed values and counts the rows it changed', async () => {
      const db = handle.db;
      const rename = compiledOnce((p: { email: string; name: string }) =>
        db.updateTable('organizations').set({ email: p.email }).where('name', '=', p.name).where('feature_set', '=', fixed('{}')),
      );
      const changed = await db.transaction().execute((trx) => affectedRows(rename(trx, { email: 'new@example.com', name: 'beta' })));
      assert.equal(changed, 1);
      assert.equal(await affectedRows(rename(db, { email: 'x@example.com', name: 'nobody' })), 0);
      const row = await db.selectFrom('organizations').select('email').where('name', '=', 'beta').executeTakeFirstOrThrow();
      assert.equal(row.email, 'new@example.com');
    });

    it('keeps one template per shape', async () => {
      const db = handle.db;
      const named = compiledPerShape(
        (count: number) => String(count),
        (count, p: Record<string, string>) =>
          db.selectFrom('organizations').select('name').where('name', 'in', Array.from({ length: count }, (_, i) => p[`n${i}`]!)).orderBy('name'),
      );
      assert.deepEqual((await named(db, 1, { n0: 'gamma' })).rows.map((row) => row.name), ['gamma']);
      assert.deepEqual((await named(db, 2, { n0: 'gamma', n1: 'alpha' })).rows.map((row) => row.name), ['alpha', 'gamma']);
      assert.deepEqual((await named(db, 1, { n0: 'alpha' })).rows.map((row) => row.name), ['alpha']);
    });

    it('names a partial update by the columns it sets, whatever their order, leaving out undefined ones', () => {
      assert.deepEqual(definedColumns({ updated_at: 'now', message: null, url: undefined, status: 'passed' }), ['message', 'status', 'updated_at']);
      assert.deepEqual(definedColumns({ status: 'passed', updated_at: 'now' }), definedColumns({ updated_at: 'later', status: 'failed' }));
    });

    it('refuses a literal value in the query, which would be frozen into every later call', async () => {
      const db = handle.db;
      const careless = compiledOnce((p: { name: string }) => db.updateTable('organizations').set({ updated_at: new Date().toISOString() }).where('name', '=', p.name));
      assert.throws(() => careless(db, { name: 'alpha' }), /is a literal; pass it as a parameter/);
    });

    it('refuses a call that lacks a parameter', async () => {
      const db = handle.db;
      const byName = compiledOnce((p: { name: string }) => db.selectFrom('organizations').select('name').where('name', '=', p.name));
      assert.throws(() => byName(db, {} as { name: string }), /no value for parameter 'name'/);
    });
  });
}
