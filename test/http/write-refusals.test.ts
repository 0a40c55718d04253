import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { assertError } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

// Issue 14, item 13, while running: a database that refuses writes (disk full, read-only) made every write
// answer 500 while /readyz stayed ready. Writes now answer 503 JSON:API saying why, reads keep working,
// and /readyz answers 503 with the reason until a write works again.
//
// SQLite: a full disk without root tricks, through the server's own connection: VACUUM leaves no free
// page, and `max_page_count` at the current size makes any write that needs a new page fail with
// SQLITE_FULL, as a full disk does. The write the test makes is a workspace whose description is larger
// than a page: its row spills onto overflow pages, new ones, so the first write after the switch is refused
// (a small row could still fit in the room its table's last page has left). PostgreSQL: the database turned read-only (as a standby is), and the
// server's connections dropped so that the new ones get the setting: writes fail with SQLSTATE 25006.

/** The longest description a workspace takes: more than a page of the test database (checked below), so a row with it needs overflow pages of its own. */
const LARGER_THAN_A_PAGE = 'x'.repeat(10_000);

interface WriteSwitch {
  refuse(): Promise<void>;
  allow(): Promise<void>;
  reason: RegExp;
}

function writeSwitch(ctx: TestContext): WriteSwitch {
  if (ctx.dialect === 'sqlite') {
    return {
      reason: /disk is full/,
      async refuse() {
        const { rows } = await sql<{ page_size: number }>`pragma page_size`.execute(ctx.handle.db);
        assert.ok(rows[0]!.page_size < LARGER_THAN_A_PAGE.length, `a page (${rows[0]!.page_size} bytes) holds the whole row`);
        await sql`vacuum`.execute(ctx.handle.db);
        await sql`pragma max_page_count = 1`.execute(ctx.handle.db); // clamped to the current size
      },
      async allow() {
        await sql`pragma max_page_count = 1073741823`.execute(ctx.handle.db);
      },
    };
  }
  const name = new URL(ctx.config.databaseUrl).pathname.slice(1);
  const admin = async (readOnly: boolean) => {
    const client = new pg.Client({ connectionString: process.env.TEAMSTAGE_TEST_PG_URL });
    await client.connect();
    try {
      await client.query(`alter database ${name} set default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    } finally {
      await client.end();
    }
    // The pool drops the terminated idle connections as their error arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
  };
  return { reason: /read-only/, refuse: () => admin(true), allow: () => admin(false) };
}

for (const dialect of testDialects()) {
  describe(`a database that refuses writes (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let writes: WriteSwitch;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' });
      org = await createOrganization(ctx);
      writes = writeSwitch(ctx);
    });
    after(() => ctx.close());

    const readyz = async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      return { status: response.statusCode, headers: response.headers, body: response.json(), text: response.body };
    };
    // A workspace, as its description is stored (a team's is not, as in HCP).
    const createWorkspace = (name: string) =>
      org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name, description: LARGER_THAN_A_PAGE } } });

    it('answers writes 503 JSON:API saying why, keeps reads working, and /readyz 503 until a write works again', async () => {
      assert.equal((await readyz()).status, 200);
      await writes.refuse();
      try {
        const refused = await createWorkspace('full');
        assertError(refused, 503, writes.reason);
        assert.match(refused.body.errors[0].detail, /try again later/);

        const read = await org.owner.api.get(`/organizations/${org.name}/teams`);
        assert.equal(read.status, 200, read.text);

        for (let i = 0; i < 2; i++) {
          const ready = await readyz();
          const error = assertError(ready, 503, /refuses writes/);
          assert.match(error.detail ?? '', writes.reason);
        }
      } finally {
        await writes.allow();
      }
      assert.equal((await readyz()).status, 200, 'ready again once a write works');
      assert.equal((await createWorkspace('after')).status, 201);
      assert.equal((await readyz()).status, 200);
    });

    it('a connection the database server terminates in use fails its work, not the process', { skip: dialect !== 'postgres' }, async () => {
      const uncaught: unknown[] = [];
      const record = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', record);
      try {
        const outcome = await ctx.handle.db
          .transaction()
          .execute(async (trx) => {
            const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
            const admin = new pg.Client({ connectionString: process.env.TEAMSTAGE_TEST_PG_URL });
            await admin.connect();
            await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
            await admin.end();
            await new Promise((resolve) => setTimeout(resolve, 300)); // the termination arrives while the client is checked out
            await sql`select 1`.execute(trx);
            return 'committed';
          })
          .catch(() => 'failed');
        assert.equal(outcome, 'failed');
        assert.deepEqual(uncaught, [], 'no uncaught exception');
        assert.equal((await readyz()).status, 200, 'the pool replaced the connection');
        assert.equal((await createWorkspace('after-termination')).status, 201);
      } finally {
        process.off('uncaughtException', record);
      }
    });
  });
}
