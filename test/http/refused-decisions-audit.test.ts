/**
 * Refused decisions leave a trace (issue 34 item 6): an override, apply or discard attempt answered 403, and an
 * override answered 409 because its giver already counted, is an entry of the organization's audit trail that
 * says who tried what and why it was refused. A 404 (the run hidden from the caller) writes nothing: a caller who
 * cannot see the run learns nothing, and the organization's trail does not fill with strangers' guesses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, startListeningApp, startRun, stagesOf, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = any;
const JSON_BODY = { 'content-type': 'application/json' };

for (const dialect of testDialects()) {
  describe(`refused decisions on the audit trail (${dialect})`, () => {
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

    async function trailOf(org: TestOrganization): Promise<() => Promise<Entry[]>> {
      const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
      assertStatus(issued, 201);
      const reader = new ApiClient(ctx.app, issued.body.data.attributes.token);
      return async () => {
        const entries: Entry[] = [];
        for (let page = 1; ; page++) {
          const answer = await reader.get(`/organization/audit-trail?page[size]=100&page[number]=${page}`);
          assertStatus(answer, 200);
          entries.push(...answer.body.data);
          if (answer.body.pagination.next_page === null) return entries;
        }
      };
    }
    const refusals = (entries: Entry[]) => entries.filter((entry) => String(entry.resource.action).endsWith('_refused'));

    it("an override refused (403 without the right, 403 for the run's author where two are needed, 409 already counted) is on the trail; a hidden one (404) is not", async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      const trail = await trailOf(gated.org);
      assertStatus(await gated.api.patch(`/workspaces/${gated.workspace.id}`, { data: { type: 'workspaces', attributes: { 'required-approvals': 2 } } }), 200);
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const [stage] = await stagesOf(gated.api, runId);
      await waitForStageStatus(gated.api, stage.id, 'awaiting_override');

      const reader = await memberWithAccess(ctx, gated.org, { 'read-workspaces': true });
      const approver = await memberWithAccess(ctx, gated.org, { 'manage-run-tasks': true });
      const stranger = await createUser(ctx);
      const otherOrg = await createOrganization(ctx);

      assertError(await stranger.api.post(`/task-stages/${stage.id}/actions/override`, {}, JSON_BODY), 404);
      assertError(await otherOrg.owner.api.post(`/task-stages/${stage.id}/actions/override`, {}, JSON_BODY), 404);
      assert.deepEqual(refusals(await trail()), [], 'a hidden stage leaves no trace');

      assertError(await reader.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'let me through' }, JSON_BODY), 403, /not allowed to override/);
      assertError(await gated.api.post(`/task-stages/${stage.id}/actions/override`, {}, JSON_BODY), 403, /author may not approve/);
      assertStatus(await approver.api.post(`/task-stages/${stage.id}/actions/override`, {}, JSON_BODY), 200);
      assertError(await approver.api.post(`/task-stages/${stage.id}/actions/override`, {}, JSON_BODY), 409, /another person/);

      const refused = refusals(await trail());
      assert.deepEqual(
        refused.map((entry: Entry) => [entry.auth.description, entry.resource.type, entry.resource.id, entry.resource.action, entry.resource.meta.refused.status]),
        [
          [reader.username, 'task_stage', stage.id, 'override_refused', 403],
          [gated.org.owner.username, 'task_stage', stage.id, 'override_refused', 403],
          [approver.username, 'task_stage', stage.id, 'override_refused', 409],
        ],
      );
      const [first, own, twice] = refused as [Entry, Entry, Entry];
      assert.equal(first.auth.accessor_id, reader.id);
      assert.deepEqual(first.resource.meta, {
        'run-id': runId, stage: 'post_plan', comment: 'let me through', refused: { status: 403, reason: 'you are not allowed to override this task stage' },
      });
      assert.match(own.resource.meta.refused.reason, /author may not approve/);
      assert.match(twice.resource.meta.refused.reason, /another person/);
      // The refusals changed nothing: one approval of two, still awaiting.
      const shown = (await gated.api.get(`/task-stages/${stage.id}`)).body.data.attributes;
      assert.deepEqual([shown.status, shown.approvals], ['awaiting_override', 1]);
    });

    it('an apply or discard refused (403) is on the trail with who tried and why; a hidden run (404) and a state refusal (409) are not', async () => {
      const gated = await gatedWorkspace(ctx, service, 'fail');
      const trail = await trailOf(gated.org);
      const runId = await startRun(gated);
      await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
      const reader = await memberWithAccess(ctx, gated.org, { 'read-workspaces': true });
      const stranger = await createUser(ctx);

      assertError(await stranger.api.post(`/runs/${runId}/actions/apply`, {}), 404);
      assertError(await stranger.api.post(`/runs/${runId}/actions/discard`, {}), 404);
      assertError(await gated.api.post(`/runs/${runId}/actions/apply`, {}), 409);
      assert.deepEqual(refusals(await trail()), []);

      assertError(await reader.api.post(`/runs/${runId}/actions/apply`, { comment: 'ship it anyway' }), 403);
      assertError(await reader.api.post(`/runs/${runId}/actions/discard`, {}), 403);
      const refused = refusals(await trail());
      assert.deepEqual(refused.map((entry: Entry) => [entry.auth.accessor_id, entry.resource.type, entry.resource.id, entry.resource.action]), [
        [reader.id, 'run', runId, 'apply_refused'],
        [reader.id, 'run', runId, 'discard_refused'],
      ]);
      assert.equal(refused[0].resource.meta.comment, 'ship it anyway');
      assert.equal(refused[0].resource.meta['workspace-id'], gated.workspace.id);
      assert.equal(refused[0].resource.meta.refused.status, 403);
      assert.match(refused[0].resource.meta.refused.reason, /only people who may queue runs can apply them/);
      assert.equal((await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision')).attributes.status, 'post_plan_awaiting_decision', 'nothing changed');
    });
  });
}
