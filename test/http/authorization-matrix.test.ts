import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, siteAdmin, unique, type TestOrganization } from '../helpers/fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

type Caller =
  | 'site admin' | 'owner' | 'organization token' | 'owners team token'
  | 'manage-teams' | 'manage-organization-access' | 'manage-membership' | 'access-secret-teams'
  | 'plain member' | 'outsider' | 'invited';

interface Expectation {
  seesSecret: boolean;
  showVisible: number;
  create: number;
  renameVisible: number;
  renameSecret: number;
  accessVisible: number;
  memberVisible: number;
  memberSecret: number;
  deleteVisible: number;
}

const OWNER: Expectation = {
  seesSecret: true, showVisible: 200, create: 200, renameVisible: 200, renameSecret: 200, accessVisible: 200,
  memberVisible: 204, memberSecret: 204, deleteVisible: 204,
};
const NOTHING: Expectation = {
  seesSecret: false, showVisible: 404, create: 404, renameVisible: 404, renameSecret: 404, accessVisible: 404,
  memberVisible: 404, memberSecret: 404, deleteVisible: 404,
};
const MEMBER: Expectation = { ...NOTHING, showVisible: 200 };

/** Who may do what to teams, one row per kind of caller. */
const MATRIX: Record<Caller, Expectation> = {
  'site admin': OWNER,
  owner: OWNER,
  'organization token': OWNER,
  'owners team token': OWNER,
  'manage-teams': { ...MEMBER, create: 200, renameVisible: 200, memberVisible: 204, deleteVisible: 204 },
  'manage-organization-access': { ...MEMBER, create: 200, renameVisible: 200, accessVisible: 200, memberVisible: 204, deleteVisible: 204 },
  'manage-membership': { ...MEMBER, memberVisible: 204 },
  'access-secret-teams': { ...MEMBER, seesSecret: true, memberVisible: 204, memberSecret: 204 },
  'plain member': MEMBER,
  outsider: NOTHING,
  invited: NOTHING,
};

const rename = (name: string) => ({ data: { type: 'teams', attributes: { name } } });

for (const dialect of testDialects()) {
  describe(`authorization matrix of team rights (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let callers: Record<Caller, ApiClient>;
    let target: Awaited<ReturnType<typeof addMember>>;
    let visibleId: string;
    let secretId: string;
    let secretName: string;

    before(async () => {
      ctx = await createTestApp(dialect);
      org = await createOrganization(ctx);
      visibleId = (await createTeam(ctx, org, { name: unique('visible'), visibility: 'organization' })).id;
      const secret = await createTeam(ctx, org, { name: unique('hidden') });
      secretId = secret.id;
      secretName = secret.name;
      target = await addMember(ctx, org);
      await addToTeam(org, secretId, target.username);

      async function memberWith(access: Record<string, boolean> | null): Promise<ApiClient> {
        const user = await addMember(ctx, org);
        const team = await createTeam(ctx, org, access ? { 'organization-access': access } : {});
        await addToTeam(org, team.id, user.username);
        return user.api;
      }
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      const ownersToken = await org.owner.api.post(`/teams/${org.ownersTeamId}/authentication-token`);
      const invited = await createUser(ctx);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: invited.email } },
      }), 201);
      callers = {
        'site admin': siteAdmin(ctx),
        owner: org.owner.api,
        'organization token': new ApiClient(ctx.app, orgToken.body.data.attributes.token),
        'owners team token': new ApiClient(ctx.app, ownersToken.body.data.attributes.token),
        'manage-teams': await memberWith({ 'manage-teams': true, 'manage-membership': true }),
        'manage-organization-access': await memberWith({ 'manage-organization-access': true, 'manage-teams': true, 'manage-membership': true }),
        'manage-membership': await memberWith({ 'manage-membership': true }),
        'access-secret-teams': await memberWith({ 'access-secret-teams': true, 'manage-membership': true }),
        'plain member': await memberWith(null),
        outsider: (await createUser(ctx)).api,
        invited: invited.api,
      };
    });
    after(() => ctx.close());

    for (const [caller, expected] of Object.entries(MATRIX) as Array<[Caller, Expectation]>) {
      it(`${caller}: ${expected === OWNER ? 'everything' : expected === NOTHING ? 'nothing (404)' : 'as the table says'}`, async () => {
        const api = callers[caller];
        const list = await api.get(`/organizations/${org.name}/teams?page[size]=100`);
        if (expected.showVisible === 404) {
          assertError(list, 404);
        } else {
          assertStatus(list, 200);
          const ids = list.body.data.map((team: { id: string }) => team.id);
          assert.ok(ids.includes(visibleId));
          assert.equal(ids.includes(secretId), expected.seesSecret, 'secret team in list');
          assert.equal(list.body.meta.pagination['total-count'], ids.length);
        }
        const showSecret = await api.get(`/teams/${secretId}`);
        if (expected.seesSecret) assertStatus(showSecret, 200);
        else assertError(showSecret, 404);
        const showVisible = await api.get(`/teams/${visibleId}`);
        assert.equal(showVisible.status, expected.showVisible, showVisible.text);

        const created = await api.post(`/organizations/${org.name}/teams`, rename(unique('made')));
        assert.equal(created.status, expected.create, `create: ${created.text}`);
        const renamedVisible = await api.patch(`/teams/${visibleId}`, rename(unique('visible')));
        assert.equal(renamedVisible.status, expected.renameVisible, `rename visible: ${renamedVisible.text}`);
        const renamedSecret = await api.patch(`/teams/${secretId}`, rename(unique('hidden')));
        assert.equal(renamedSecret.status, expected.renameSecret, `rename secret: ${renamedSecret.text}`);
        const access = await api.patch(`/teams/${visibleId}`, { data: { type: 'teams', attributes: { 'organization-access': { 'manage-modules': true } } } });
        assert.equal(access.status, expected.accessVisible, `access: ${access.text}`);
        const body = { data: [{ type: 'users', id: target.username }] };
        const memberVisible = await api.post(`/teams/${visibleId}/relationships/users`, body);
        assert.equal(memberVisible.status, expected.memberVisible, `member visible: ${memberVisible.text}`);
        const memberSecret = await api.post(`/teams/${secretId}/relationships/users`, body);
        assert.equal(memberSecret.status, expected.memberSecret, `member secret: ${memberSecret.text}`);
        const doomed = await createTeam(ctx, org, { visibility: 'organization' });
        const deleted = await api.delete(`/teams/${doomed.id}`);
        assert.equal(deleted.status, expected.deleteVisible, `delete: ${deleted.text}`);
        const stillThere = await org.owner.api.get(`/teams/${doomed.id}`);
        assert.equal(stillThere.status, expected.deleteVisible === 204 ? 404 : 200);

        // permissions reflect the same table for this caller.
        if (showVisible.status === 200) {
          const permissions = showVisible.body.data.attributes.permissions;
          assert.equal(permissions['can-destroy'], expected.deleteVisible === 204);
          assert.equal(permissions['can-update-name'], expected.renameVisible === 200);
          assert.equal(permissions['can-update-organization-access'], expected.accessVisible === 200);
          assert.equal(permissions['can-update-membership'], expected.memberVisible === 204);
        }
        for (const failed of [created, renamedVisible, renamedSecret, access, memberVisible, memberSecret, deleted]) {
          if (failed.status >= 400) assertError(failed, 404);
        }
      });
    }

    it('a secret team stays invisible to a plain member through q, filter[names], include and memberships', async () => {
      const api = callers['plain member'];
      const byQ = await api.get(`/organizations/${org.name}/teams?q=${secretName.slice(0, 6)}`);
      assertStatus(byQ, 200);
      assert.deepEqual(byQ.body.data, []);
      assert.equal(byQ.body.meta.pagination['total-count'], 0);
      const byName = await api.get(`/organizations/${org.name}/teams?filter[names]=${secretName}`);
      assert.deepEqual(byName.body.data, []);

      // The target is in the secret team and (after the matrix) in the visible one.
      await addToTeam(org, visibleId, target.username);
      const withMemberships = await api.get(`/teams/${visibleId}?include=organization-memberships,users`);
      assertStatus(withMemberships, 200);
      const membership = withMemberships.body.included.find((r: any) => r.type === 'organization-memberships' && r.id === target.membershipId);
      assert.ok(membership, 'the membership is included');
      assert.deepEqual(membership.relationships.teams.data.map((t: any) => t.id), [visibleId]);
      const listed = await api.get(`/organizations/${org.name}/teams?include=organization_memberships`);
      for (const resource of listed.body.included ?? []) {
        assert.ok(!resource.relationships.teams.data.some((t: any) => t.id === secretId), 'no secret team through include on list');
      }
      const shown = await api.get(`/organization-memberships/${target.membershipId}`);
      assertStatus(shown, 200);
      assert.ok(!shown.body.data.relationships.teams.data.some((t: any) => t.id === secretId));
      const memberships = await api.get(`/organizations/${org.name}/organization-memberships?page[size]=100`);
      for (const resource of memberships.body.data) {
        assert.ok(!resource.relationships.teams.data.some((t: any) => t.id === secretId));
      }
      // The owner sees it through the same routes.
      const ownerView = await org.owner.api.get(`/organization-memberships/${target.membershipId}`);
      assert.ok(ownerView.body.data.relationships.teams.data.some((t: any) => t.id === secretId));
    });

    it('manage-teams cannot grant organization access it does not control when creating a team (404, nothing created)', async () => {
      const api = callers['manage-teams'];
      const name = unique('escalate');
      const created = await api.post(`/organizations/${org.name}/teams`, {
        data: { type: 'teams', attributes: { name, 'organization-access': { 'manage-organization-access': true, 'manage-teams': true, 'manage-membership': true } } },
      });
      assertError(created, 404);
      const found = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=${name}`);
      assert.deepEqual(found.body.data, []);
      // Sending every key false is no grant and is fine.
      const harmless = await api.post(`/organizations/${org.name}/teams`, {
        data: { type: 'teams', attributes: { name, 'organization-access': { 'manage-policies': false } } },
      });
      assertStatus(harmless, 200);
      // With manage-organization-access, creating with access is allowed.
      const allowed = await callers['manage-organization-access'].post(`/organizations/${org.name}/teams`, {
        data: { type: 'teams', attributes: { name: unique('granted'), 'organization-access': { 'manage-policies': true } } },
      });
      assertStatus(allowed, 200);
      assert.equal(allowed.body.data.attributes['organization-access']['manage-policies'], true);
    });

    it('a caller who may not change organization access gets 404 on the owners team too', async () => {
      const api = callers['access-secret-teams'];
      assertStatus(await api.get(`/teams/${org.ownersTeamId}`), 200);
      const all = Object.fromEntries(Object.keys((await org.owner.api.get(`/teams/${org.ownersTeamId}`)).body.data.attributes['organization-access']).map((k) => [k, true]));
      assertError(await api.patch(`/teams/${org.ownersTeamId}`, { data: { type: 'teams', attributes: { 'organization-access': all } } }), 404);
      assertError(await api.patch(`/teams/${org.ownersTeamId}`, { data: { type: 'teams', attributes: { 'organization-access': { 'manage-modules': false } } } }), 404);
    });
  });
}
