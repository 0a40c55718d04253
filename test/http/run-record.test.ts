/**
 * The record of a run (issue 27): run events and comments for every transition and decision, an override
 * needing two distinct approvers, errors that say why, stages after an error `unreachable`, and apply
 * counts from the apply's report or log.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createTeam, type TestUser } from '../helpers/fixtures.js';
import { attachRunTask, createRun, createRunTask, createWorkspace, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, HMAC_KEY, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const PLANS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const dialect of testDialects()) {
  describe(`the record of a run (${dialect})`, () => {
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

    it('an override by two approvers and a discard: every step is an event, with its actor and comment', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail', { enforcement: 'mandatory' });
      const patched = await gated.api.patch(`/workspaces/${gated.workspace.id}/tasks/${gated.workspaceTaskId}`, {
        data: { type: 'workspace-tasks', attributes: { 'required-approvals': 2 } },
      });
      assertStatus(patched, 200);
      assert.equal(patched.body.data.attributes['required-approvals'], 2);
      const overriders: TestUser[] = [];
      const team = await createTeam(ctx, gated.org, { 'organization-access': { 'manage-run-tasks': true } });
      for (let i = 0; i < 2; i++) {
        const member = await addMember(ctx, gated.org);
        await addToTeam(gated.org, team.id, member.username);
        overriders.push(member);
      }
      const [alice, bob] = overriders as [TestUser, TestUser];

      const runId = await startRun(gated, { message: 'add the audit bucket' });
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, runId);
      const awaiting = await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
      const runningAt = awaiting.data.attributes['status-timestamps']['running-at'];
      assert.equal(awaiting.data.attributes['required-approvals'], 2);
      assert.equal(awaiting.data.attributes.approvals, 0);

      // The first approval: the stage still awaits the second person.
      const first = await alice.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'reviewed the replace' }, { 'content-type': 'application/json' });
      assertStatus(first, 200);
      assert.equal(first.body.data.attributes.status, 'awaiting_override');
      assert.equal(first.body.data.attributes.approvals, 1);
      assert.deepEqual(first.body.data.attributes.overrides.map((o: any) => [o['overridden-by'], o.comment]), [[alice.username, 'reviewed the replace']]);
      // One person counts once.
      assertError(await alice.api.post(`/task-stages/${stage.id}/actions/override`, {}, { 'content-type': 'application/json' }), 409, /another person/);
      assert.equal((await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision')).attributes.status, 'post_plan_awaiting_decision');

      const second = await bob.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'agreed' }, { 'content-type': 'application/json' });
      assertStatus(second, 200);
      assert.equal(second.body.data.attributes.status, 'running');
      assert.equal(second.body.data.attributes.approvals, 2);
      const passed = await waitForStageStatus(gated.api, stage.id, 'passed');
      const timestamps = passed.data.attributes['status-timestamps'];
      assert.equal(timestamps['running-at'], runningAt, 'the first start is kept');
      assert.match(timestamps['overridden-at'], ISO_Z);
      assert.ok(timestamps['overridden-at'] >= timestamps['awaiting-override-at']);
      await waitForRunStatus(gated.api, runId, 'post_plan_completed');

      assertStatus(await gated.api.post(`/runs/${runId}/actions/discard`, { comment: 'not today' }), 202);
      assert.equal((await waitForRunStatus(gated.api, runId, 'discarded')).attributes.status, 'discarded');

      const events = await gated.api.get(`/runs/${runId}/run-events?include=actor,comment&page[size]=100`);
      assertStatus(events, 200);
      const actions = events.body.data.map((event: any) => event.attributes.action);
      const order = ['queued', 'plan_queued', 'planning', 'planned', 'post_plan_running', 'task_stage_awaiting_override', 'post_plan_awaiting_decision',
        'overridden', 'overridden', 'task_stage_passed', 'post_plan_completed', 'discarded'];
      assert.deepEqual(actions.filter((action: string) => order.includes(action)), order, actions.join(', '));
      for (const event of events.body.data) {
        assert.equal(event.type, 'run-events');
        assert.match(event.attributes['created-at'], ISO_Z);
        assert.equal(typeof event.attributes.description, 'string');
      }
      const byAction = (action: string) => events.body.data.filter((event: any) => event.attributes.action === action);
      const [overrideA, overrideB] = byAction('overridden');
      assert.deepEqual(overrideA.relationships.actor.data, { id: alice.id, type: 'users' });
      assert.match(overrideA.attributes.description, /1 of 2 approvals/);
      assert.deepEqual(overrideB.relationships.actor.data, { id: bob.id, type: 'users' });
      assert.match(overrideB.attributes.description, /2 of 2 approvals/);
      const [discarded] = byAction('discarded');
      assert.deepEqual(discarded.relationships.actor.data, { id: gated.org.owner.id, type: 'users' });
      const included = events.body.included as any[];
      const commentOf = (event: any) => included.find((resource) => resource.type === 'comments' && resource.id === event.relationships.comment.data.id);
      assert.equal(commentOf(overrideA).attributes.body, 'reviewed the replace');
      assert.equal(commentOf(discarded).attributes.body, 'not today');
      assert.ok(included.some((resource) => resource.type === 'users' && resource.attributes.username === bob.username));
      assert.deepEqual(byAction('queued')[0].relationships.actor.data, { id: gated.org.owner.id, type: 'users' });

      // One event and one comment on their own.
      const shown = await gated.api.get(`/run-events/${discarded.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.action, 'discarded');
      const comments = await gated.api.get(`/runs/${runId}/comments`);
      assert.deepEqual(comments.body.data.map((comment: any) => comment.attributes.body), ['reviewed the replace', 'agreed', 'not today']);
      // The run names the same comments (its `comments` relationship), the overrides' included.
      const run = await gated.api.get(`/runs/${runId}`);
      assert.deepEqual(run.body.data.relationships.comments.data, comments.body.data.map((entry: any) => ({ id: entry.id, type: 'comments' })));
      const comment = await gated.api.get(`/comments/${comments.body.data[2].id}`);
      assertStatus(comment, 200);
      assert.deepEqual(comment.body.data.relationships['run-event'].data, { id: discarded.id, type: 'run-events' });

      // A comment of its own, and what outsiders see.
      const added = await gated.api.post(`/runs/${runId}/comments`, { data: { type: 'comments', attributes: { body: 'see the postmortem' } } });
      assertStatus(added, 201);
      assert.match(added.body.data.id, /^wsc-/);
      assertError(await gated.api.post(`/runs/${runId}/comments`, { data: { type: 'comments', attributes: { body: '  ' } } }), 422);
      const outsider = await addMember(ctx, gated.org);
      assertError(await outsider.api.get(`/runs/${runId}/run-events`), 404);
      assertError(await outsider.api.get(`/run-events/${discarded.id}`), 404);
      assertError(await outsider.api.get(`/comments/${added.body.data.id}`), 404);
      assertError(await gated.api.get('/run-events/re-doesnotexist'), 404);
    });

    it('an errored run says why; the stages it never reached are unreachable; apply counts come from the report or the log', async () => {
      const org = (await gatedWorkspace(ctx, service, 'pass', { enforcement: 'advisory' })).org;
      const task = await createRunTask(org.owner.api, org.name, service.url, { 'hmac-key': HMAC_KEY });
      const agentWorkspace = async (name: string) => {
        const workspace = await createWorkspace(org.owner.api, org.name, { name, 'execution-mode': 'agent', 'auto-apply': true });
        await attachRunTask(org.owner.api, workspace.id, task.id, { 'enforcement-level': 'advisory', stages: ['post_plan', 'post_apply'] });
        return workspace;
      };
      const plan = fs.readFileSync(path.join(PLANS, 'action_reason/plan.json'));
      const claimAndPlan = async (runId: string) => {
        const run = await waitForRunStatus(org.owner.api, runId, 'plan_queued');
        const planId = run.relationships.plan.data.id;
        assertStatus(await org.owner.api.post(`/plans/${planId}/actions/claim`), 200);
        return { planId, applyId: run.relationships.apply.data.id as string };
      };

      // The pipeline reports the plan errored.
      const failing = await agentWorkspace(`pass-errors-${Date.now()}`);
      await uploadFor(failing.id);
      const errored = (await createRun(org.owner.api, failing.id)).data.id;
      const { planId } = await claimAndPlan(errored);
      assertStatus(await org.owner.api.post(`/plans/${planId}/actions/report`, { status: 'errored', message: 'Error: provider registry unreachable' }, { 'content-type': 'application/json' }), 200);
      const run = await waitForRunStatus(org.owner.api, errored, 'errored');
      assert.equal(run.attributes['error-message'], 'the pipeline reported the plan errored: Error: provider registry unreachable');
      const stages = await stagesOf(org.owner.api, errored);
      assert.deepEqual(stages.map((stage: any) => [stage.attributes.stage, stage.attributes.status]), [['post_plan', 'unreachable'], ['post_apply', 'unreachable']]);
      const events = (await org.owner.api.get(`/runs/${errored}/run-events`)).body.data;
      const erroredEvent = events.find((event: any) => event.attributes.action === 'errored');
      assert.equal(erroredEvent.attributes.description, 'Errored: the pipeline reported the plan errored: Error: provider registry unreachable');

      // A plan and an apply that finish; the apply's counts from its log, then from its report.
      for (const how of ['log', 'report'] as const) {
        const workspace = await agentWorkspace(`pass-apply-${how}-${Date.now()}`);
        await uploadFor(workspace.id);
        const runId = (await createRun(org.owner.api, workspace.id)).data.id;
        const { planId: plan2, applyId } = await claimAndPlan(runId);
        assertStatus(await org.owner.api.request('PUT', `/plans/${plan2}/json-output`, plan.toString('utf8'), { 'content-type': 'application/json' }), 200);
        assertStatus(await org.owner.api.post(`/plans/${plan2}/actions/report`, { status: 'finished' }, { 'content-type': 'application/json' }), 200);
        await waitForRunStatus(org.owner.api, runId, 'apply_queued');
        assertStatus(await org.owner.api.post(`/applies/${applyId}/actions/claim`), 200);
        assertStatus(await org.owner.api.request('PUT', `/applies/${applyId}/log`, '\u001b[1mApply complete! Resources: 1 imported, 2 added, 0 changed, 1 destroyed.\u001b[0m\n', { 'content-type': 'text/plain' }), 200);
        const report = how === 'log' ? { status: 'finished' } : { status: 'finished', 'resource-additions': 5, 'resource-destructions': 3 };
        assertStatus(await org.owner.api.post(`/applies/${applyId}/actions/report`, report, { 'content-type': 'application/json' }), 200);
        const apply = (await org.owner.api.get(`/applies/${applyId}`)).body.data.attributes;
        const expected = how === 'log' ? [2, 0, 1, 1] : [5, 0, 3, 0];
        assert.deepEqual([apply['resource-additions'], apply['resource-changes'], apply['resource-destructions'], apply['resource-imports']], expected, how);
      }

      // A plan without changes: the post-apply stage is unreachable, not pending.
      const quiet = await agentWorkspace(`pass-quiet-${Date.now()}`);
      await uploadFor(quiet.id);
      const quietRun = (await createRun(org.owner.api, quiet.id)).data.id;
      const { planId: quietPlan } = await claimAndPlan(quietRun);
      assertStatus(await org.owner.api.request('PUT', `/plans/${quietPlan}/json-output`, fs.readFileSync(path.join(PLANS, 'no_changes/plan.json'), 'utf8'), { 'content-type': 'application/json' }), 200);
      assertStatus(await org.owner.api.post(`/plans/${quietPlan}/actions/report`, { status: 'finished' }, { 'content-type': 'application/json' }), 200);
      await waitForRunStatus(org.owner.api, quietRun, 'planned_and_finished');
      const quietStages = await stagesOf(org.owner.api, quietRun);
      assert.deepEqual(quietStages.map((stage: any) => [stage.attributes.stage, stage.attributes.status]), [['post_plan', 'passed'], ['post_apply', 'unreachable']]);

      async function uploadFor(workspaceId: string) {
        await uploadConfiguration(ctx, org.owner.api, workspaceId);
      }
    });
  });
}
