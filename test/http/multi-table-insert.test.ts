import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { multiTableInsert } from '../../src/db/multi-table-insert.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const now = new Date().toISOString();
const organization = (name: string) => ({ name, name_lower: name, email: `${name}@example.com`, feature_set: 'standard', created_at: now, updated_at: now });
const workspace = (id: string, organizationName: string) => ({
  id, organization_name: organizationName, name: id, name_lower: id, description: null, auto_apply: 0 as const, working_directory: '', created_at: now, updated_at: now,
});

describe('multi-table insert: several tables in one PostgreSQL statement', { skip: !testDialects().includes('postgres') && 'needs PostgreSQL' }, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp('postgres', { TEAMSTAGE_JOBS: 'off' });
  });
  after(async () => ctx?.close());

  const names = () => {
    const suffix = randomBytes(4).toString('hex');
    return { org: `multi-${suffix}`, first: `ws-a-${suffix}`, second: `ws-b-${suffix}` };
  };
  const workspacesOf = async (org: string) => (await ctx.handle.db.selectFrom('workspaces').select('id').where('organization_name', '=', org).orderBy('id').execute()).map((row) => row.id);

  it('writes rows that reference rows of an earlier table of the same statement', async () => {
    const insert = multiTableInsert(ctx.handle.db);
    const { org, first, second } = names();
    await insert(ctx.handle.db, [
      { table: 'organizations', rows: [organization(org)] },
      { table: 'teams', rows: [] },
      { table: 'workspaces', rows: [workspace(first, org), workspace(second, org)] },
    ]);
    assert.deepEqual(await workspacesOf(org), [first, second]);
  });

  it('is atomic: when a later table refuses its row, the earlier tables keep nothing', async () => {
    const insert = multiTableInsert(ctx.handle.db);
    const { org, first } = names();
    await assert.rejects(insert(ctx.handle.db, [
      { table: 'organizations', rows: [organization(org)] },
      // The same id twice: the primary key refuses the second one.
      { table: 'workspaces', rows: [workspace(first, org), workspace(first, org)] },
    ]));
    assert.equal(await ctx.handle.db.selectFrom('organizations').select('name').where('name', '=', org).executeTakeFirst(), undefined);
  });

  it('refuses rows of one table that name different columns, before sending anything', async () => {
    const insert = multiTableInsert(ctx.handle.db);
    const { org, first, second } = names();
    const { description: _, ...withoutDescription } = workspace(second, org);
    await assert.rejects(
      insert(ctx.handle.db, [
        { table: 'organizations', rows: [organization(org)] },
        { table: 'workspaces', rows: [workspace(first, org), withoutDescription as ReturnType<typeof workspace>] },
      ]),
      /name different columns/,
    );
    assert.equal(await ctx.handle.db.selectFrom('organizations').select('name').where('name', '=', org).executeTakeFirst(), undefined);
  });
});
