/**
 * More than one approver per workspace (issue 27): a workspace's `required-approvals` is how many distinct people
 * must override any of its runs' stages awaiting one; a stage needs the most of its workspace's and its failed
 * mandatory tasks' own; it shows "n of N"; one person counts once; a run keeps its workspace's number from its
 * creation. Bad values are a 422 that changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createTeam, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus, type GatedWorkspace } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const JSON_BODY = { 'content-type': 'application/json' };

for (const dialect of testDialects()) {
  describe(`a workspace's required approvals (${dialect})`, () => {
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

    /** `count` members of a team that may override run tasks. */
    async function overriders(org: TestOrganization, count: number): Promise<TestUser[]> {
      const team = await createTeam(ctx, org, { 'organization-access': { 'manage-run-tasks': true } });
      const members: TestUser[] = [];
      for (let i = 0; i < count; i++) {
        const member = await addMember(ctx, org);
        await addToTeam(org, team.id, member.username);
        members.push(member);
      }
      return members;
    }

    const setWorkspace = (gated: GatedWorkspace, attributes: Record<string, unknown>) =>
      gated.api.patch(`/workspaces/${gated.workspace.id}`, { data: { type: 'workspaces', attributes } });
    const override = (user: TestUser, stageId: string, comment?: string) =>
      user.api.post(`/task-stages/${stageId}/actions/override`, comment === undefined ? {} : { comment }, JSON_BODY);

    it('is 1 by default, is set on create and update, and refuses anything but a whole number from 1 to 10', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      assert.equal((await gated.api.get(`/workspaces/${gated.workspace.id}`)).body.data.attributes['required-approvals'], 1);
      const created = await gated.api.post(`/organizations/${gated.org.name}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: 'four-eyes', 'required-approvals': 2 } },
      });
      assertStatus(created, 201);
      assert.equal(created.body.data.attributes['required-approvals'], 2);

      const patched = await setWorkspace(gated, { 'required-approvals': 3 });
      assertStatus(patched, 200);
      assert.equal(patched.body.data.attributes['required-approvals'], 3);
      for (const bad of [0, 11, 1.5, -1]) {
        const error = assertError(await setWorkspace(gated, { 'required-approvals': bad, description: 'not written' }), 422, /whole number from 1 to 10/);
        assert.equal(error.source?.pointer, '/data/attributes/required-approvals');
      }
      assertError(await setWorkspace(gated, { 'required-approvals': '2' }), 422);
      assertError(
        await gated.api.post(`/organizations/${gated.org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'zero-eyes', 'required-approvals': 0 } } }),
        422,
        /whole number/,
      );
      const shown = await gated.api.get(`/workspaces/${gated.workspace.id}`);
      assert.equal(shown.body.data.attributes['required-approvals'], 3, 'a refused update changes nothing');
      assert.equal(shown.body.data.attributes.description, null);
      assertStatus(await gated.api.get(`/organizations/${gated.org.name}/workspaces/zero-eyes`), 404);
    });

    it("a stage needs the most of its workspace's and its task's, shows n of N, and one person counts once", async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      assertStatus(await setWorkspace(gated, { 'required-approvals': 3 }), 200);
      const task = await gated.api.patch(`/workspaces/${gated.workspace.id}/tasks/${gated.workspaceTaskId}`, {
        data: { type: 'workspace-tasks', attributes: { 'required-approvals': 2 } },
      });
      assertStatus(task, 200);
      const [alice, bob, carol] = (await overriders(gated.org, 3)) as [TestUser, TestUser, TestUser];

      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, runId);
      const awaiting = await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
      assert.equal(awaiting.data.attributes['required-approvals'], 3, 'the workspace asks for more than its task');
      assert.equal(awaiting.data.attributes.approvals, 0);

      const first = await override(alice, stage.id, 'first look');
      assertStatus(first, 200);
      assert.equal(first.body.data.attributes.status, 'awaiting_override');
      assert.equal(first.body.data.attributes.approvals, 1);
      assertError(await override(alice, stage.id), 409, /another person/);

      const second = await override(bob, stage.id);
      assertStatus(second, 200);
      assert.equal(second.body.data.attributes.status, 'awaiting_override', 'two of three: the task alone would have let it go');
      assert.deepEqual([second.body.data.attributes.approvals, second.body.data.attributes['required-approvals']], [2, 3]);
      assertError(await override(bob, stage.id), 409, /another person/);
      assert.equal((await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision')).attributes.status, 'post_plan_awaiting_decision');

      const third = await override(carol, stage.id);
      assertStatus(third, 200);
      assert.equal(third.body.data.attributes.status, 'running');
      assert.equal(third.body.data.attributes.approvals, 3);
      const passed = await waitForStageStatus(gated.api, stage.id, 'passed');
      assert.deepEqual(passed.data.attributes.overrides.map((o: any) => o['overridden-by']), [alice.username, bob.username, carol.username]);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');
      const events = await gated.api.get(`/runs/${runId}/run-events?page[size]=100`);
      const described = events.body.data.filter((event: any) => event.attributes.action === 'overridden').map((event: any) => event.attributes.description);
      assert.deepEqual(described.map((text: string) => /(\d) of (\d) approvals/.exec(text)?.slice(1).join('/')), ['1/3', '2/3', '3/3']);
    });

    it("a task asking for more than its workspace wins; a run keeps its workspace's number from its creation", async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      assertStatus(await setWorkspace(gated, { 'required-approvals': 2 }), 200);
      const [alice, bob] = (await overriders(gated.org, 2)) as [TestUser, TestUser];
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, runId);
      assert.equal((await waitForStageStatus(gated.api, stage.id, 'awaiting_override')).data.attributes['required-approvals'], 2, 'the task asks for 1, its workspace for 2');

      // Lowered after the run was created: this run still needs two people.
      assertStatus(await setWorkspace(gated, { 'required-approvals': 1 }), 200);
      const first = await override(alice, stage.id);
      assertStatus(first, 200);
      assert.deepEqual([first.body.data.attributes.status, first.body.data.attributes.approvals, first.body.data.attributes['required-approvals']], ['awaiting_override', 1, 2]);
      assertStatus(await override(bob, stage.id), 200);
      await waitForStageStatus(gated.api, stage.id, 'passed');

      // A task that asks for 3 in a workspace that asks for 1.
      assertStatus(
        await gated.api.patch(`/workspaces/${gated.workspace.id}/tasks/${gated.workspaceTaskId}`, { data: { type: 'workspace-tasks', attributes: { 'required-approvals': 3 } } }),
        200,
      );
      assertStatus(await gated.api.post(`/runs/${runId}/actions/discard`, {}), 202);
      await waitForRunStatus(gated.api, runId, 'discarded');
      const next = await startRun(gated);
      await waitForRunStatus(gated.api, next, 'post_plan_awaiting_decision');
      const [nextStage] = await stagesOf(gated.api, next);
      assert.equal((await waitForStageStatus(gated.api, nextStage.id, 'awaiting_override')).data.attributes['required-approvals'], 3);
    });
  });
}
