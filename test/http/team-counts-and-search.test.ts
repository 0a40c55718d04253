import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** total-count from the trigger-maintained counts, and `q` through the substring index (migration 005). */
for (const dialect of testDialects()) {
  describe(`team counts and search stay exact (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(() => ctx.close());

    const total = async (api: any, org: string, query = '') =>
      (await api.get(`/organizations/${org}/teams?page[size]=1${query}`)).body.meta.pagination['total-count'] as number;

    it('counts follow creates, visibility changes and deletes, for owners and for members', async () => {
      const org = await createOrganization(ctx);
      const member = await addMember(ctx, org);
      assert.equal(await total(org.owner.api, org.name), 1, 'owners');
      const visible = await createTeam(ctx, org, { visibility: 'organization' });
      const secret = await createTeam(ctx, org, { visibility: 'secret' });
      const mine = await createTeam(ctx, org, { visibility: 'secret' });
      await addToTeam(org, mine.id, member.username);
      assert.equal(await total(org.owner.api, org.name), 4);
      assert.equal(await total(member.api, org.name), 2, 'the visible team and the member’s own secret team');

      await org.owner.api.patch(`/teams/${secret.id}`, { data: { type: 'teams', attributes: { visibility: 'organization' } } });
      assert.equal(await total(member.api, org.name), 3);
      await org.owner.api.patch(`/teams/${mine.id}`, { data: { type: 'teams', attributes: { visibility: 'organization' } } });
      assert.equal(await total(member.api, org.name), 3, 'own team counted once when it becomes visible');
      await org.owner.api.delete(`/teams/${visible.id}`);
      assert.equal(await total(org.owner.api, org.name), 3);
      assert.equal(await total(member.api, org.name), 2);
      // The maintained count agrees with a count of the listed pages.
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams?page[size]=100`);
      assert.equal(listed.body.data.length, 3);
    });

    it('q finds substrings case-insensitively, treats _ and % literally, and follows renames', async () => {
      const org = await createOrganization(ctx);
      const names = ['Alpha_Team', 'alphaXteam', 'beta-team', 'gamma'];
      const ids: Record<string, string> = {};
      for (const name of names) ids[name] = (await createTeam(ctx, org, { name })).id;
      const found = async (q: string) =>
        (await org.owner.api.get(`/organizations/${org.name}/teams?q=${encodeURIComponent(q)}`)).body.data.map((t: any) => t.attributes.name).sort();
      assert.deepEqual(await found('ALPHA'), ['Alpha_Team', 'alphaXteam']);
      assert.deepEqual(await found('a_t'), ['Alpha_Team'], '_ is not a wildcard');
      assert.deepEqual(await found('pha%tea'), [], '% is not a wildcard');
      assert.deepEqual(await found('ta-'), ['beta-team']);
      assert.deepEqual(await found('am'), ['Alpha_Team', 'alphaXteam', 'beta-team', 'gamma'], 'two letters: below the trigram size, still found');
      await org.owner.api.patch(`/teams/${ids['beta-team']}`, { data: { type: 'teams', attributes: { name: 'delta-team' } } });
      assert.deepEqual(await found('beta'), []);
      assert.deepEqual(await found('delta'), ['delta-team']);
      assert.equal(await total(org.owner.api, org.name, '&q=team'), 3);
    });
  });
}
