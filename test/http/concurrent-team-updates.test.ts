/**
 * Issue 14 item 3: concurrent PATCHes of one team must not lose updates. Every PATCH merges the keys it
 * sends into the stored organization-access, so N requests of N different keys must leave all N set, and
 * the answers must read as if the requests ran one after the other: the last one shows what is stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

/** Keys that no consistency rule ties to another, so each may be granted alone. */
export const INDEPENDENT_KEYS = [
  'manage-policies', 'manage-policy-overrides', 'manage-run-tasks', 'manage-vcs-settings', 'manage-agent-pools',
  'read-workspaces', 'manage-providers', 'manage-modules', 'manage-membership', 'delegate-policy-overrides',
] as const;

const ROUNDS = 5;

const accessPatch = (access: Record<string, boolean>) => ({ data: { type: 'teams', attributes: { 'organization-access': access } } });

for (const dialect of testDialects()) {
  describe(`concurrent team updates lose nothing (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    it(`${INDEPENDENT_KEYS.length} concurrent PATCHes of different keys keep every key, ${ROUNDS} rounds`, async () => {
      const kept: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const team = await createTeam(ctx, org);
        const answers = await Promise.all(INDEPENDENT_KEYS.map((key) => org.owner.api.patch(`/teams/${team.id}`, accessPatch({ [key]: true }))));
        for (const answer of answers) assertStatus(answer, 200);
        const stored = (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['organization-access'];
        kept.push(INDEPENDENT_KEYS.filter((key) => stored[key] === true).length);
        // Serializable answers: the one that committed last shows everything.
        assert.ok(
          answers.some((answer) => JSON.stringify(answer.body.data.attributes['organization-access']) === JSON.stringify(stored)),
          'no answer shows what is stored',
        );
      }
      assert.deepEqual(kept, Array(ROUNDS).fill(INDEPENDENT_KEYS.length), `keys kept per round of ${INDEPENDENT_KEYS.length}`);
    });

    it(`a revocation concurrent with grants of other keys stays revoked, ${ROUNDS} rounds`, async () => {
      const [revoked, ...others] = INDEPENDENT_KEYS;
      const outcomes: boolean[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const team = await createTeam(ctx, org, { 'organization-access': { [revoked]: true } });
        const requests = [accessPatch({ [revoked]: false }), ...others.map((key) => accessPatch({ [key]: true }))];
        const answers = await Promise.all(requests.map((body) => org.owner.api.patch(`/teams/${team.id}`, body)));
        for (const answer of answers) assertStatus(answer, 200);
        assert.equal(answers[0]!.body.data.attributes['organization-access'][revoked], false, 'the revocation answers false');
        const stored = (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['organization-access'];
        outcomes.push(stored[revoked] === false && others.every((key) => stored[key] === true));
        assert.ok(
          answers.some((answer) => JSON.stringify(answer.body.data.attributes['organization-access']) === JSON.stringify(stored)),
          'no answer shows what is stored',
        );
      }
      assert.deepEqual(outcomes, Array(ROUNDS).fill(true), 'rounds where the revocation held and every grant was kept');
    });

    it('concurrent grant and revoke of one key end as the answer that came last shows', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const team = await createTeam(ctx, org);
        const requests = [
          accessPatch({ 'manage-modules': true }),
          accessPatch({ 'manage-modules': false }),
          { data: { type: 'teams', attributes: { visibility: 'organization' } } },
          { data: { type: 'teams', attributes: { 'sso-team-id': `sso-${round}` } } },
        ];
        const answers = await Promise.all(requests.map((body) => org.owner.api.patch(`/teams/${team.id}`, body)));
        for (const answer of answers) assertStatus(answer, 200);
        const stored = (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes;
        const view = (attributes: any) =>
          JSON.stringify([attributes['organization-access'], attributes.visibility, attributes['sso-team-id']]);
        assert.ok(answers.some((answer) => view(answer.body.data.attributes) === view(stored)), `no answer shows what is stored: ${view(stored)}`);
        assert.equal(stored.visibility, 'organization');
        assert.equal(stored['sso-team-id'], `sso-${round}`);
      }
    });
  });
}
