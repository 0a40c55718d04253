/**
 * What the organization audit trail records (issue 27), beyond teams (audit-trail.test.ts): team members,
 * organization memberships, tokens of every organization kind, run tasks, workspace tasks and every run
 * decision, each with its actor and before/after where it matters, and never a secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { attachRunTask, createRun, createRunTask, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, HMAC_KEY, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = any;

for (const dialect of testDialects()) {
  describe(`what the organization audit trail records (${dialect})`, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    async function auditReader(org: TestOrganization): Promise<ApiClient> {
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assertStatus(issued, 201);
      return new ApiClient(ctx.app, issued.body.data.attributes.token);
    }

    /** Every entry of the trail, and its raw text (to look for secrets in). */
    async function trail(reader: ApiClient): Promise<{ entries: Entry[]; text: string }> {
      const entries: Entry[] = [];
      let text = '';
      for (let page = 1; ; page++) {
        const answer = await reader.get(`/organization/audit-trail?page[size]=100&page[number]=${page}`);
        assertStatus(answer, 200);
        entries.push(...answer.body.data);
        text += answer.text;
        if (answer.body.pagination.next_page === null) return { entries, text };
      }
    }

    const actions = (entries: Entry[], type: string, id?: string) =>
      entries.filter((entry) => entry.resource.type === type && (id === undefined || entry.resource.id === id)).map((entry) => entry.resource.action);
    const find = (entries: Entry[], type: string, action: string, id?: string): Entry => {
      const found = entries.find((entry) => entry.resource.type === type && entry.resource.action === action && (id === undefined || entry.resource.id === id));
      assert.ok(found, `no ${type} ${action} entry`);
      return found;
    };

    it('organization memberships (invite, accept, delete) and team members (add, remove; by username and by membership id)', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const bob = await createUser(ctx);
      const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: bob.email }, relationships: { teams: { data: [{ type: 'teams', id: team.id }] } } },
      });
      assertStatus(invited, 201);
      const membershipId = invited.body.data.id;
      // Refused (already a member): nothing recorded.
      assertError(await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
        data: { type: 'organization-memberships', attributes: { email: bob.email } },
      }), 422);
      assertStatus(await bob.api.post(`/organization-memberships/${membershipId}/actions/accept`), 200);

      const carol = await addMember(ctx, org);
      await addToTeam(org, team.id, carol.username);
      // Added again: nothing changes, nothing is recorded.
      await addToTeam(org, team.id, carol.username);
      assertStatus(await org.owner.api.delete(`/teams/${team.id}/relationships/users`, { data: [{ type: 'users', id: carol.username }] }), 204);
      assertStatus(await org.owner.api.post(`/teams/${team.id}/relationships/organization-memberships`, {
        data: [{ type: 'organization-memberships', id: carol.membershipId }],
      }), 204);
      assertStatus(await org.owner.api.delete(`/teams/${team.id}/relationships/organization-memberships`, {
        data: [{ type: 'organization-memberships', id: carol.membershipId }],
      }), 204);
      // Removing an owner takes the owners team's lock: recorded inside it.
      const dave = await addMember(ctx, org);
      await addToTeam(org, org.ownersTeamId, dave.username);
      assertStatus(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: dave.username }] }), 204);
      // The last owner cannot leave: refused, not recorded.
      assertError(await org.owner.api.delete(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: org.owner.username }] }), 403);
      assertStatus(await org.owner.api.delete(`/organization-memberships/${membershipId}`), 204);

      const { entries } = await trail(reader);
      assert.deepEqual(actions(entries, 'organization_membership', membershipId), ['invite', 'accept', 'destroy']);
      const invite = find(entries, 'organization_membership', 'invite', membershipId);
      assert.deepEqual(invite.resource.meta, { 'user-id': bob.id, username: bob.username, email: bob.email, teams: [team.id] });
      assert.equal(invite.auth.accessor_id, org.owner.id);
      const accept = find(entries, 'organization_membership', 'accept', membershipId);
      assert.equal(accept.auth.accessor_id, bob.id, 'the invited user accepted');
      assert.equal(find(entries, 'organization_membership', 'destroy', membershipId).auth.accessor_id, org.owner.id);

      assert.deepEqual(actions(entries, 'team', team.id), ['create', 'add_members', 'remove_members', 'add_members', 'remove_members']);
      const members = entries.filter((entry) => entry.resource.id === team.id && entry.resource.action !== 'create');
      assert.deepEqual(members.map((entry) => entry.resource.meta['organization-memberships']), Array(4).fill([carol.membershipId]));
      assert.deepEqual(members.map((entry) => entry.resource.meta.users), [[carol.username], [carol.username], [], []]);
      assert.deepEqual(actions(entries, 'team', org.ownersTeamId), ['create', 'add_members', 'add_members', 'remove_members']);
      assert.deepEqual(find(entries, 'team', 'remove_members', org.ownersTeamId).resource.meta.users, [dave.username]);
    });

    it('tokens of every organization kind: create, regenerate, delete; never the secret', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const team = await createTeam(ctx, org);
      const secrets: string[] = [];
      const issue = async (path: string, body?: unknown) => {
        const issued = await org.owner.api.post(path, body);
        assertStatus(issued, 201);
        secrets.push(issued.body.data.attributes.token);
        return issued.body.data.id as string;
      };
      const org1 = await issue(`/organizations/${org.name}/authentication-token`);
      const org2 = await issue(`/organizations/${org.name}/authentication-token`);
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/authentication-token`), 204);
      const legacy1 = await issue(`/teams/${team.id}/authentication-token`);
      const legacy2 = await issue(`/teams/${team.id}/authentication-token`);
      assertStatus(await org.owner.api.delete(`/teams/${team.id}/authentication-token`), 204);
      const described = await issue(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } });
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${described}`), 204);
      const audit2 = await issue(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      // A user's own token belongs to no organization: on no organization's trail.
      const personal = await org.owner.api.post(`/users/${org.owner.id}/authentication-tokens`, {});
      assertStatus(personal, 201);
      secrets.push(personal.body.data.attributes.token, org.owner.token);

      const reader2 = new ApiClient(ctx.app, secrets.at(-3)!);
      assertError(await reader.get('/organization/audit-trail'), 401, undefined);
      const { entries, text } = await trail(reader2);
      const tokenEntries = entries.filter((entry) => entry.resource.type === 'authentication_token');
      assert.deepEqual(
        tokenEntries.map((entry) => [entry.resource.id, entry.resource.action, entry.resource.meta['token-kind']]),
        [
          [tokenEntries[0].resource.id, 'create', 'audit-trail'],
          [org1, 'create', 'organization'],
          [org2, 'regenerate', 'organization'],
          [org2, 'destroy', 'organization'],
          [legacy1, 'create', 'team'],
          [legacy2, 'regenerate', 'team'],
          [legacy2, 'destroy', 'team'],
          [described, 'create', 'team'],
          [described, 'destroy', 'team'],
          // A regenerated token's entry names the new token.
          [audit2, 'regenerate', 'audit-trail'],
        ],
      );
      assert.deepEqual(find(entries, 'authentication_token', 'create', described).resource.meta, {
        'token-kind': 'team', 'expired-at': tokenEntries[7].resource.meta['expired-at'], 'team-id': team.id, legacy: false, description: 'ci',
      });
      assert.ok(tokenEntries.every((entry) => entry.auth.accessor_id === org.owner.id));
      assert.ok(!tokenEntries.some((entry) => entry.resource.id === personal.body.data.id));
      for (const secret of secrets) assert.ok(!text.includes(secret), 'no token secret in the trail');
      assert.doesNotMatch(text, /token_hash|"token"/);
    });

    it('run tasks (create, update, delete) and workspace tasks (attach, update, detach), by a user and by the organization token', async () => {
      const org = await createOrganization(ctx);
      const reader = await auditReader(org);
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      assertStatus(orgToken, 201);
      const orgApi = new ApiClient(ctx.app, orgToken.body.data.attributes.token);
      const task = await createRunTask(org.owner.api, org.name, service.url, { 'hmac-key': HMAC_KEY, description: 'checks' });
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const attached = await attachRunTask(orgApi, workspace.id, task.id, { 'enforcement-level': 'advisory', stages: ['post_plan'] });
      assertStatus(await orgApi.patch(`/workspaces/${workspace.id}/tasks/${attached.id}`, {
        data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] } },
      }), 200);
      // Deleting an attached task is refused (422): nothing recorded.
      assertError(await org.owner.api.delete(`/tasks/${task.id}`), 422);
      assertStatus(await org.owner.api.delete(`/workspaces/${workspace.id}/tasks/${attached.id}`), 204);
      assertStatus(await org.owner.api.patch(`/tasks/${task.id}`, { data: { type: 'tasks', attributes: { name: 'renamed-task', enabled: false } } }), 200);
      assertStatus(await org.owner.api.delete(`/tasks/${task.id}`), 204);

      const { entries, text } = await trail(reader);
      assert.deepEqual(actions(entries, 'task', task.id), ['create', 'update', 'destroy']);
      const created = find(entries, 'task', 'create', task.id);
      assert.equal(created.resource.meta.after.url, service.url);
      assert.equal(created.resource.meta.after['hmac-key-set'], true);
      const updated = find(entries, 'task', 'update', task.id);
      assert.deepEqual(updated.resource.meta.before, { name: created.resource.meta.after.name, enabled: true });
      assert.deepEqual(updated.resource.meta.after, { name: 'renamed-task', enabled: false });
      assert.ok(!text.includes(HMAC_KEY), 'never the HMAC key');

      assert.deepEqual(actions(entries, 'workspace_task', attached.id), ['create', 'update', 'destroy']);
      const attach = find(entries, 'workspace_task', 'create', attached.id);
      assert.equal(attach.auth.description, `api-org_${org.name}`);
      assert.equal(attach.resource.meta['workspace-id'], workspace.id);
      assert.equal(attach.resource.meta['task-id'], task.id);
      assert.deepEqual(find(entries, 'workspace_task', 'update', attached.id).resource.meta, {
        'workspace-id': workspace.id,
        'task-id': task.id,
        before: { 'enforcement-level': 'advisory', stages: ['post_plan'] },
        after: { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] },
      });
      assert.equal(find(entries, 'workspace_task', 'destroy', attached.id).auth.accessor_id, org.owner.id);
    });

    it('every run decision: apply, discard, cancel and override, each with its actor and comment', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'mandatory' });
      const reader = await auditReader(gated.org);
      // A team token decides too: its service account is the actor.
      const deciders = await createTeam(ctx, gated.org, { 'organization-access': { 'manage-run-tasks': true, 'manage-workspaces': true, 'read-workspaces': true } });
      const teamToken = await gated.api.post(`/teams/${deciders.id}/authentication-token`);
      assertStatus(teamToken, 201);
      const teamApi = new ApiClient(ctx.app, teamToken.body.data.attributes.token);

      const held = await startRun(gated, { message: 'held by a failed task' });
      await waitForRunStatus(gated.api, held, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, held);
      await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
      // Queued behind it, then canceled.
      const queued = await startRun(gated, { message: 'waits its turn' });
      await waitForRunStatus(gated.api, queued, 'pending');
      assertStatus(await gated.api.post(`/runs/${queued}/actions/cancel`, { comment: 'not this one' }), 202);
      await waitForRunStatus(gated.api, queued, ['canceled', 'discarded']);

      assertStatus(await teamApi.post(`/task-stages/${stage.id}/actions/override`, { comment: 'known false positive' }, { 'content-type': 'application/json' }), 200);
      await waitForRunStatus(gated.api, held, 'post_plan_completed');
      assertStatus(await gated.api.post(`/runs/${held}/actions/discard`, { comment: 'not today' }), 202);
      await waitForRunStatus(gated.api, held, 'discarded');

      // Without tasks: planned, then applied.
      const plain = await createRunnableWorkspace(ctx, gated.api, gated.org.name);
      const applied = (await createRun(gated.api, plain.id, { message: 'apply me' })).data.id as string;
      await waitForRunStatus(gated.api, applied, 'planned');
      assertStatus(await gated.api.post(`/runs/${applied}/actions/apply`, { comment: 'ship it' }), 202);
      await waitForRunStatus(gated.api, applied, 'applied');
      // A decision the state machine refuses is a 409 and no entry.
      assertError(await gated.api.post(`/runs/${applied}/actions/discard`, {}), 409);

      const { entries } = await trail(reader);
      const cancel = find(entries, 'run', 'cancel', queued);
      assert.equal(cancel.resource.meta.comment, 'not this one');
      assert.equal(cancel.resource.meta.before.status, 'pending');
      const override = find(entries, 'task_stage', 'override', stage.id);
      assert.equal(override.auth.description, `api-team_${deciders.id.slice('team-'.length)}`);
      assert.deepEqual(override.resource.meta, {
        'run-id': held, stage: 'post_plan', approvals: 1, 'required-approvals': 1, released: true, comment: 'known false positive',
      });
      const discard = find(entries, 'run', 'discard', held);
      assert.equal(discard.resource.meta.comment, 'not today');
      assert.equal(discard.auth.accessor_id, gated.org.owner.id);
      const apply = find(entries, 'run', 'apply', applied);
      assert.deepEqual(apply.resource.meta, { 'workspace-id': plain.id, before: { status: 'planned' }, after: { status: 'confirmed' }, comment: 'ship it' });
      assert.deepEqual(actions(entries, 'run'), ['cancel', 'discard', 'apply']);
    });
  });
}
