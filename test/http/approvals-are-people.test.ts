/**
 * Approvals are people (issue 34 item 3), over HTTP on both dialects: with required approvals 2, one person with a
 * user token and a team token (whoever minted it) cannot release a stage; a second user token of the same person
 * counts once; two distinct people can; an approval whose giver has since lost the right or left the organization
 * stops counting; the run's author may not approve it where the workspace's `prevent-self-approval` (default on)
 * says so, and may where it is off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createTeam, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus, type GatedWorkspace } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const JSON_BODY = { 'content-type': 'application/json' };

for (const dialect of testDialects()) {
  describe(`approvals are people (${dialect})`, () => {
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

    /** A team that may override run tasks, with `count` new members. */
    async function overriders(org: TestOrganization, count: number): Promise<{ teamId: string; members: Array<TestUser & { membershipId: string }> }> {
      const team = await createTeam(ctx, org, { 'organization-access': { 'manage-run-tasks': true } });
      const members: Array<TestUser & { membershipId: string }> = [];
      for (let i = 0; i < count; i++) {
        const member = await addMember(ctx, org);
        await addToTeam(org, team.id, member.username);
        members.push(member);
      }
      return { teamId: team.id, members };
    }

    const setWorkspace = (gated: GatedWorkspace, attributes: Record<string, unknown>) =>
      gated.api.patch(`/workspaces/${gated.workspace.id}`, { data: { type: 'workspaces', attributes } });
    const override = (api: ApiClient, stageId: string) => api.post(`/task-stages/${stageId}/actions/override`, {}, JSON_BODY);
    const approvalsOf = async (gated: GatedWorkspace, stageId: string) => {
      const shown = (await gated.api.get(`/task-stages/${stageId}`)).body.data.attributes;
      return [shown.status, shown.approvals, shown['required-approvals']];
    };

    /** A workspace that needs `required` approvals and a run of it awaiting an override (created by the organization's owner). */
    async function awaitingStage(required: number, attributes: Record<string, unknown> = {}): Promise<{ gated: GatedWorkspace; runId: string; stageId: string }> {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      assertStatus(await setWorkspace(gated, { 'required-approvals': required, ...attributes }), 200);
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, runId);
      await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
      return { gated, runId, stageId: stage.id };
    }

    async function newUserToken(user: TestUser): Promise<ApiClient> {
      const issued = await user.api.post(`/users/${user.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'second' } } });
      assertStatus(issued, 201);
      return new ApiClient(ctx.app, issued.body.data.attributes.token);
    }

    async function teamToken(minter: ApiClient, teamId: string): Promise<ApiClient> {
      const issued = await minter.post(`/teams/${teamId}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: `minted-${Math.random()}` } } });
      assertStatus(issued, 201);
      return new ApiClient(ctx.app, issued.body.data.attributes.token);
    }

    it("an owner's user token and a team token the owner minted do not make two approvals; a second user token counts once", async () => {
      // The owner created the run: let authors approve here, so only the token question is asked.
      const { gated, stageId } = await awaitingStage(2, { 'prevent-self-approval': false });
      const ownersToken = await teamToken(gated.api, gated.org.ownersTeamId);
      assertStatus(await override(gated.api, stageId), 200);
      assertError(await override(ownersToken, stageId), 403, /approvals of 2 people.*not a team or site token/);
      assertError(await override(await newUserToken(gated.org.owner), stageId), 409, /another person/);
      assertError(await override(new ApiClient(ctx.app, ctx.siteToken), stageId), 403, /not a team or site token/);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 1, 2]);
      const document = (await ownersToken.get(`/task-stages/${stageId}`)).body.data.attributes;
      assert.equal(document.permissions['can-override'], false, 'the stage document tells the team token it cannot count');
    });

    it('a plain member of a manage-run-tasks team: their user token and a token they minted for their team make one approval', async () => {
      const { gated, stageId } = await awaitingStage(2);
      const { teamId, members: [mia] } = await overriders(gated.org, 1);
      const miasTeamToken = await teamToken(mia!.api, teamId);
      assertStatus(await override(mia!.api, stageId), 200);
      assertError(await override(miasTeamToken, stageId), 403, /approvals of 2 people/);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 1, 2]);
    });

    it('two distinct people release it; a team token still releases a stage that needs one approval', async () => {
      const { gated, runId, stageId } = await awaitingStage(2);
      const { members: [alice, bob] } = await overriders(gated.org, 2);
      assertStatus(await override(alice!.api, stageId), 200);
      const second = await override(bob!.api, stageId);
      assertStatus(second, 200);
      assert.deepEqual([second.body.data.attributes.status, second.body.data.attributes.approvals], ['running', 2]);
      await waitForStageStatus(gated.api, stageId, 'passed');
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');

      const one = await awaitingStage(1);
      const { teamId } = await overriders(one.gated.org, 0);
      assertStatus(await override(await teamToken(one.gated.api, teamId), one.stageId), 200);
      await waitForStageStatus(one.gated.api, one.stageId, 'passed');
    });

    it('an approval stops counting once its giver loses the right or leaves the organization', async () => {
      const { gated, runId, stageId } = await awaitingStage(2);
      const { teamId, members: [alice, bob, carol, dave] } = await overriders(gated.org, 4);
      assertStatus(await override(alice!.api, stageId), 200);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 1, 2]);

      // Alice leaves the team that gave her the right: her approval no longer counts, so Bob's is the first.
      assertStatus(await gated.api.delete(`/teams/${teamId}/relationships/users`, { data: [{ type: 'users', id: alice!.username }] }), 204);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 0, 2]);
      const afterBob = await override(bob!.api, stageId);
      assertStatus(afterBob, 200);
      assert.deepEqual([afterBob.body.data.attributes.status, afterBob.body.data.attributes.approvals], ['awaiting_override', 1]);

      // Bob leaves the organization: his no longer counts either.
      assertStatus(await gated.api.delete(`/organization-memberships/${bob!.membershipId}`), 204);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 0, 2]);
      assertStatus(await override(carol!.api, stageId), 200);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 1, 2]);
      const last = await override(dave!.api, stageId);
      assertStatus(last, 200);
      assert.equal(last.body.data.attributes.status, 'running');
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const overrides = (await gated.api.get(`/task-stages/${stageId}`)).body.data.attributes.overrides;
      assert.equal(overrides.length, 4, 'every override stays on the record, counted or not');
    });

    it("the run's author may not approve it where two are needed, by default; the workspace's prevent-self-approval turns that off", async () => {
      const { gated, stageId } = await awaitingStage(2);
      const shown = (await gated.api.get(`/workspaces/${gated.workspace.id}`)).body.data.attributes;
      assert.equal(shown['prevent-self-approval'], true, 'on by default');
      assertError(await override(gated.api, stageId), 403, /author may not approve/);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 0, 2]);

      assertError(await setWorkspace(gated, { 'prevent-self-approval': 'no', description: 'not written' }), 422);
      assert.equal((await gated.api.get(`/workspaces/${gated.workspace.id}`)).body.data.attributes.description, null, 'a refused update changes nothing');
      const off = await setWorkspace(gated, { 'prevent-self-approval': false });
      assertStatus(off, 200);
      assert.equal(off.body.data.attributes['prevent-self-approval'], false);
      // Read when counted: the run already waiting follows the new setting.
      const own = await override(gated.api, stageId);
      assertStatus(own, 200);
      assert.deepEqual([own.body.data.attributes.status, own.body.data.attributes.approvals], ['awaiting_override', 1]);
      // Turned on again, the author's approval stops counting.
      assertStatus(await setWorkspace(gated, { 'prevent-self-approval': true }), 200);
      assert.deepEqual(await approvalsOf(gated, stageId), ['awaiting_override', 0, 2]);

      const created = await gated.api.post(`/organizations/${gated.org.name}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: `self-${Date.now()}`, 'prevent-self-approval': false } },
      });
      assertStatus(created, 201);
      assert.equal(created.body.data.attributes['prevent-self-approval'], false);
    });

    it("where one approval is enough, the run's author still releases it", async () => {
      const { gated, stageId } = await awaitingStage(1);
      assertStatus(await override(gated.api, stageId), 200);
      await waitForStageStatus(gated.api, stageId, 'passed');
    });
  });
}
