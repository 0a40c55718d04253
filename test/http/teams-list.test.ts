import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** Case-insensitive, then by code point: the order both databases must agree on. */
function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  const left = a.name.toLowerCase();
  const right = b.name.toLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const names = (response: { body: any }) => response.body.data.map((team: any) => team.attributes.name);

for (const dialect of testDialects()) {
  describe(`teams list: search, filters, sorting, pagination, include (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    const created: Array<{ id: string; name: string }> = [];
    const TEAM_NAMES = ['Alpha', 'alpha-2', 'alpha_1', 'BETA', 'beta-db', 'Gamma', 'delta', 'a-b', 'a_b', 'ab', 'A0', 'z', 'Zeta9', 'x_ray', 'x-ray', '_first', '-dash', '9lives'];

    before(async () => {
      // A production-like collation: ordering must not depend on the database's locale.
      ctx = await createTestApp(dialect, {}, { postgresIcuLocale: 'en-US' });
      org = await createOrganization(ctx);
      for (const name of TEAM_NAMES) {
        const team = await createTeam(ctx, org, { name, visibility: 'organization' });
        created.push({ id: team.id, name });
      }
      created.push({ id: org.ownersTeamId, name: 'owners' });
    });
    after(() => ctx.close());

    it('sorts by name ignoring case, then id, the same on every database', async () => {
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams?page[size]=100`);
      assertStatus(listed, 200);
      assert.deepEqual(names(listed), [...created].sort(byNameThenId).map((team) => team.name));
    });

    it('q is a case-insensitive substring of the name; _ and % match literally', async () => {
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?q=ALPHA`)), ['Alpha', 'alpha-2', 'alpha_1']);
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?q=eta`)), ['BETA', 'beta-db', 'Zeta9']);
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?q=_`)), ['_first', 'a_b', 'alpha_1', 'x_ray']);
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?q=%25`)), []);
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?q=nomatch`)), []);
      const withCount = await org.owner.api.get(`/organizations/${org.name}/teams?q=a&page[size]=2`);
      assert.equal(withCount.body.meta.pagination['total-count'], TEAM_NAMES.filter((n) => n.toLowerCase().includes('a')).length);
      // The count comes with the page's rows; a page past the last match still has it.
      const pastTheMatches = await org.owner.api.get(`/organizations/${org.name}/teams?q=a&page[size]=2&page[number]=99`);
      assert.deepEqual(pastTheMatches.body.data, []);
      assert.equal(pastTheMatches.body.meta.pagination['total-count'], TEAM_NAMES.filter((n) => n.toLowerCase().includes('a')).length);
    });

    it('filter[names] is an exact any-of, with raw or encoded brackets and commas', async () => {
      for (const query of [
        'filter[names]=BETA,delta',
        'filter%5Bnames%5D=BETA,delta',
        'filter%5Bnames%5D=BETA%2Cdelta',
        'filter[names]=BETA%2Cdelta%2Cnot-there',
      ]) {
        const listed = await org.owner.api.get(`/organizations/${org.name}/teams?${query}`);
        assertStatus(listed, 200);
        assert.deepEqual(names(listed), ['BETA', 'delta'], query);
      }
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=alpha`)), ['Alpha'], 'exact, not substring');
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=a_b`)), ['a_b'], '_ is not a wildcard');
      assert.deepEqual(names(await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=beta&q=BE`)), ['BETA']);
    });

    it('paginates with meta and absolute links with encoded brackets', async () => {
      const total = created.length;
      const first = await org.owner.api.get(`/organizations/${org.name}/teams?page[size]=5&q=`);
      assertStatus(first, 200);
      assert.equal(first.body.data.length, 5);
      assert.deepEqual(first.body.meta.pagination, {
        'current-page': 1, 'page-size': 5, 'prev-page': null, 'next-page': 2, 'total-pages': Math.ceil(total / 5), 'total-count': total,
      });
      const base = `http://127.0.0.1:8080/api/v2/organizations/${org.name}/teams`;
      assert.equal(first.body.links.self, `${base}?q=&page%5Bnumber%5D=1&page%5Bsize%5D=5`);
      assert.equal(first.body.links.first, `${base}?q=&page%5Bnumber%5D=1&page%5Bsize%5D=5`);
      assert.equal(first.body.links.prev, null);
      assert.equal(first.body.links.next, `${base}?q=&page%5Bnumber%5D=2&page%5Bsize%5D=5`);
      assert.equal(first.body.links.last, `${base}?q=&page%5Bnumber%5D=${Math.ceil(total / 5)}&page%5Bsize%5D=5`);

      const all: string[] = [];
      for (let page = 1; page <= Math.ceil(total / 5); page++) {
        const response = await org.owner.api.get(`/organizations/${org.name}/teams?page%5Bnumber%5D=${page}&page%5Bsize%5D=5`);
        all.push(...names(response));
        assert.equal(response.body.meta.pagination['prev-page'], page === 1 ? null : page - 1);
      }
      assert.deepEqual(all, [...created].sort(byNameThenId).map((team) => team.name), 'pages partition the list in order');

      const defaults = await org.owner.api.get(`/organizations/${org.name}/teams`);
      assert.equal(defaults.body.meta.pagination['page-size'], 20);
      assert.equal(defaults.body.data.length, Math.min(20, total));

      const past = await org.owner.api.get(`/organizations/${org.name}/teams?page[number]=99`);
      assertStatus(past, 200);
      assert.deepEqual(past.body.data, []);
      assert.equal(past.body.meta.pagination['next-page'], null);

      const empty = await org.owner.api.get(`/organizations/${org.name}/teams?q=nothing-matches`);
      assert.equal(empty.body.meta.pagination['total-pages'], 1);
      assert.equal(empty.body.meta.pagination['total-count'], 0);
    });

    it("page[size] outside 1..100 and a bad page[number] are 422", async () => {
      for (const query of ['page[size]=0', 'page[size]=101', 'page%5Bsize%5D=101', 'page[size]=abc', 'page[size]=-1']) {
        assertError(await org.owner.api.get(`/organizations/${org.name}/teams?${query}`), 422, /^page\[size\] must be between 1 and 100$/);
      }
      assertStatus(await org.owner.api.get(`/organizations/${org.name}/teams?page[size]=100`), 200);
      assertStatus(await org.owner.api.get(`/organizations/${org.name}/teams?page[size]=1`), 200);
      assertError(await org.owner.api.get(`/organizations/${org.name}/teams?page[number]=0`), 422);
    });

    it('include=users,organization-memberships (either spelling) on list and show; invalid include is 400', async () => {
      const member = await addMember(ctx, org);
      const team = created.find((t) => t.name === 'delta')!;
      await addToTeam(org, team.id, member.username);
      for (const include of ['users,organization-memberships', 'users,organization_memberships']) {
        const shown = await org.owner.api.get(`/teams/${team.id}?include=${include}`);
        assertStatus(shown, 200);
        const included = shown.body.included;
        assert.deepEqual(included.map((r: any) => `${r.type}/${r.id}`).sort(), [`organization-memberships/${member.membershipId}`, `users/${member.id}`].sort());
        assert.equal(included.find((r: any) => r.type === 'users').attributes.username, member.username);
        assert.equal(included.find((r: any) => r.type === 'organization-memberships').attributes.status, 'active');

        const listed = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=delta,owners&include=${include}`);
        assertStatus(listed, 200);
        const types = listed.body.included.map((r: any) => `${r.type}/${r.id}`);
        assert.ok(types.includes(`users/${member.id}`));
        assert.ok(types.includes(`users/${org.owner.id}`));
        assert.ok(types.includes(`organization-memberships/${member.membershipId}`));
        assert.equal(new Set(types).size, types.length, 'each included resource once');
      }
      assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.included, undefined);
      for (const path of [`/teams/${team.id}?include=workspaces`, `/organizations/${org.name}/teams?include=users,bogus`]) {
        assertError(await org.owner.api.get(path), 400, /include parameter/);
      }
      const badCreate = await org.owner.api.post(`/organizations/${org.name}/teams?include=nope`, { data: { type: 'teams', attributes: { name: 'never-made' } } });
      assertError(badCreate, 400, /include parameter/);
      const badUpdate = await org.owner.api.patch(`/teams/${team.id}?include=nope`, { data: { type: 'teams', attributes: { name: 'never-renamed' } } });
      assertError(badUpdate, 400, /include parameter/);
      const check = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=never-made,never-renamed`);
      assert.deepEqual(check.body.data, [], 'a 400 for include changes nothing');
    });

    it('every list item deep-equals its show document, for an owner and for a plain member', async () => {
      const member = await addMember(ctx, org);
      await addToTeam(org, created[3]!.id, member.username);
      await org.owner.api.post(`/teams/${created[4]!.id}/authentication-token`);
      for (const api of [org.owner.api, member.api]) {
        const listed = await api.get(`/organizations/${org.name}/teams?page[size]=100`);
        assertStatus(listed, 200);
        assert.ok(listed.body.data.length >= TEAM_NAMES.length);
        for (const item of listed.body.data) {
          const shown = await api.get(`/teams/${item.id}`);
          assert.deepEqual(item, shown.body.data, item.attributes.name);
        }
      }
    });

    it('answers 404 for an unknown organization', async () => {
      assertError(await org.owner.api.get('/organizations/no-such-org/teams'), 404);
    });
  });
}
