import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** Mixed-case spellings of one name: unique ignoring case, so they all compete for one slot. */
function spellings(name: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    [...name].map((char, j) => (((i >> (j % 5)) & 1) === 1 ? char.toUpperCase() : char.toLowerCase())).join(''),
  );
}

for (const dialect of testDialects()) {
  describe(`concurrent creates of one team name (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    for (let round = 1; round <= 3; round++) {
      it(`20 concurrent creates: exactly one 200, nineteen 422 'Name has already been taken' (round ${round})`, async () => {
        const org = await createOrganization(ctx);
        const names = spellings(`platform-team-${round}`, 20);
        assert.ok(new Set(names).size > 5, 'several different spellings take part');
        const responses = await Promise.all(
          names.map((name) => org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name } } })),
        );
        const statuses = responses.map((response) => response.status);
        assert.equal(statuses.filter((status) => status === 200).length, 1, JSON.stringify(statuses));
        assert.equal(statuses.filter((status) => status === 422).length, 19, JSON.stringify(statuses));
        for (const response of responses.filter((r) => r.status === 422)) {
          assert.equal(response.body.errors[0].detail, 'Name has already been taken');
          assert.equal(response.body.errors[0].source.pointer, '/data/attributes/name');
        }
        const winner = responses.find((response) => response.status === 200)!;
        const listed = await org.owner.api.get(`/organizations/${org.name}/teams?q=platform-team-${round}`);
        assert.equal(listed.body.data.length, 1);
        assert.equal(listed.body.data[0].id, winner.body.data.id);
        const rows = await ctx.handle.db.selectFrom('teams').select('id').where('organization_name', '=', org.name).where('name_lower', '=', `platform-team-${round}`).execute();
        assert.equal(rows.length, 1);
      });
    }

    it('concurrent renames onto one name: exactly one wins', async () => {
      const org = await createOrganization(ctx);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const created = await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: `source-${i}` } } });
        ids.push(created.body.data.id);
      }
      const names = spellings('target', 10);
      const responses = await Promise.all(
        ids.map((id, i) => org.owner.api.patch(`/teams/${id}`, { data: { type: 'teams', attributes: { name: names[i] } } })),
      );
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 200).length, 1, JSON.stringify(statuses));
      assert.ok(responses.filter((r) => r.status !== 200).every((r) => r.status === 422 && r.body.errors[0].detail === 'Name has already been taken'));
    });
  });
}
