import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { ORGANIZATION_ACCESS_KEYS, mergeOrganizationAccess, noAccess, type OrganizationAccess } from '../../src/access/organization-access.js';

const accessBody = (access: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: 'teams', attributes: { ...extra, 'organization-access': access } },
});

/** One request per rule that breaks exactly it, and the key the pointer must name. */
const VIOLATIONS: Array<{ access: Record<string, boolean>; key: string }> = [
  { access: { 'manage-projects': true }, key: 'manage-projects' },
  { access: { 'read-projects': true }, key: 'read-projects' },
  { access: { 'manage-teams': true }, key: 'manage-teams' },
  { access: { 'manage-organization-access': true, 'manage-membership': true }, key: 'manage-organization-access' },
  { access: { 'access-secret-teams': true }, key: 'access-secret-teams' },
];

for (const dialect of testDialects()) {
  describe(`organization-access over HTTP (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    it('stores and echoes all sixteen keys in create, show, update and list', async () => {
      const all = Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, true]));
      const team = await createTeam(ctx, org, { visibility: 'organization', 'organization-access': all });
      assert.deepEqual(team.body.data.attributes['organization-access'], all);
      const shown = await org.owner.api.get(`/teams/${team.id}`);
      assert.deepEqual(shown.body.data.attributes['organization-access'], all);
      const listed = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=${team.name}`);
      assert.deepEqual(listed.body.data[0].attributes['organization-access'], all);
      // Turn each key off and on again on its own where the rules allow, and check the echo.
      for (const key of ['manage-policies', 'manage-policy-overrides', 'manage-run-tasks', 'manage-vcs-settings', 'manage-agent-pools',
        'manage-providers', 'manage-modules', 'delegate-policy-overrides', 'access-secret-teams', 'manage-organization-access', 'manage-projects'] as const) {
        const off = await org.owner.api.patch(`/teams/${team.id}`, accessBody({ [key]: false }));
        assertStatus(off, 200);
        assert.deepEqual(off.body.data.attributes['organization-access'], { ...all, [key]: false }, key);
        const on = await org.owner.api.patch(`/teams/${team.id}`, accessBody({ [key]: true }));
        assert.deepEqual(on.body.data.attributes['organization-access'], all, key);
      }
    });

    it('defaults every key to false and applies the implications on create', async () => {
      const plain = await createTeam(ctx, org);
      assert.deepEqual(plain.body.data.attributes['organization-access'], noAccess());
      const workspaces = await createTeam(ctx, org, { 'organization-access': { 'manage-workspaces': true } });
      assert.deepEqual(workspaces.body.data.attributes['organization-access'], { ...noAccess(), 'manage-workspaces': true, 'read-workspaces': true });
      const projects = await createTeam(ctx, org, { 'organization-access': { 'manage-projects': true, 'manage-workspaces': true } });
      assert.deepEqual(projects.body.data.attributes['organization-access'], {
        ...noAccess(), 'manage-projects': true, 'read-projects': true, 'manage-workspaces': true, 'read-workspaces': true,
      });
    });

    it('a create breaking a rule is 422 with the pointer of the key, and creates nothing', async () => {
      for (const [index, violation] of VIOLATIONS.entries()) {
        const name = `rule-breaker-${index}`;
        const response = await org.owner.api.post(`/organizations/${org.name}/teams`, accessBody(violation.access, { name }));
        const error = assertError(response, 422);
        assert.equal(error.source?.pointer, `/data/attributes/organization-access/${violation.key}`);
        assert.match(error.detail ?? '', new RegExp(`${violation.key} requires`));
        const found = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=${name}`);
        assert.deepEqual(found.body.data, []);
      }
    });

    it('a PATCH breaking a rule is 422 and changes nothing, not even the other attributes it sent', async () => {
      const empty = await createTeam(ctx, org);
      const managers = await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true, 'manage-teams': true } });
      const cases = [
        ...VIOLATIONS.map((violation) => ({ teamId: empty.id, ...violation })),
        // The change alone is harmless; the merged result breaks rule 3.
        { teamId: managers.id, access: { 'manage-membership': false }, key: 'manage-teams' },
        { teamId: managers.id, access: { 'manage-membership': false, 'manage-teams': false, 'access-secret-teams': true }, key: 'access-secret-teams' },
      ];
      for (const { teamId, access, key } of cases) {
        const before = await org.owner.api.get(`/teams/${teamId}`);
        const response = await org.owner.api.patch(
          `/teams/${teamId}`,
          accessBody(access, { name: 'should-not-stick', visibility: 'organization', 'allow-member-token-management': false, 'sso-team-id': 'x' }),
        );
        assert.equal(assertError(response, 422).source?.pointer, `/data/attributes/organization-access/${key}`, JSON.stringify(access));
        const after = await org.owner.api.get(`/teams/${teamId}`);
        assert.deepEqual(after.body.data, before.body.data);
      }
    });

    it('a PATCH changes only the keys it sends; wrong types are 422', async () => {
      const team = await createTeam(ctx, org, { 'organization-access': { 'manage-policies': true, 'manage-modules': true } });
      const patched = await org.owner.api.patch(`/teams/${team.id}`, accessBody({ 'manage-modules': false, 'manage-run-tasks': true }));
      assert.deepEqual(patched.body.data.attributes['organization-access'], { ...noAccess(), 'manage-policies': true, 'manage-run-tasks': true });
      for (const bad of [{ 'manage-policies': 'true' }, { 'manage-policies': 1 }, { 'manage-policies': null }]) {
        const response = await org.owner.api.patch(`/teams/${team.id}`, accessBody(bad));
        assert.equal(assertError(response, 422).source?.pointer, '/data/attributes/organization-access/manage-policies');
      }
      assertError(await org.owner.api.patch(`/teams/${team.id}`, { data: { type: 'teams', attributes: { 'organization-access': [true] } } }), 422);
      const unchanged = await org.owner.api.get(`/teams/${team.id}`);
      assert.deepEqual(unchanged.body.data.attributes['organization-access'], patched.body.data.attributes['organization-access']);
    });

    it('property: a sequence of random PATCHes always shows a valid state, and a rejected one changes nothing', async () => {
      const team = await createTeam(ctx, org);
      let model: OrganizationAccess = noAccess();
      const change = fc.record(
        Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, fc.boolean()])) as Record<string, fc.Arbitrary<boolean>>,
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(change, async (sent) => {
          const { access: expected, violations } = mergeOrganizationAccess(model, sent);
          const response = await org.owner.api.patch(`/teams/${team.id}`, accessBody(sent));
          const shown = (await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['organization-access'];
          if (violations.length > 0) {
            assert.equal(response.status, 422, response.text);
            assert.equal(response.body.errors[0].source.pointer, `/data/attributes/organization-access/${violations[0]!.key}`);
            assert.deepEqual(shown, model);
          } else {
            assert.equal(response.status, 200, response.text);
            assert.deepEqual(response.body.data.attributes['organization-access'], expected);
            assert.deepEqual(shown, expected);
            model = expected;
          }
          assert.equal(mergeOrganizationAccess(shown, {}).violations.length, 0, 'the stored state breaks no rule');
        }),
        { numRuns: 60 },
      );
    });
  });
}
