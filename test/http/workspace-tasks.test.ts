import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization } from '../helpers/fixtures.js';
import type { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRunTask, createWorkspace, memberWithAccess, subscribe } from '../helpers/run-fixtures.js';
import { startAppWithTaskService, testDialects, type TestContext } from '../helpers/test-app.js';

const attachBody = (taskId: string | undefined, attributes: Record<string, unknown>) => ({
  data: {
    type: 'workspace-tasks',
    attributes,
    ...(taskId ? { relationships: { task: { data: { type: 'tasks', id: taskId } } } } : {}),
  },
});

for (const dialect of testDialects()) {
  describe(`workspace tasks (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let close: () => Promise<void>;
    before(async () => ({ ctx, mock, close } = await startAppWithTaskService(dialect)));
    after(() => close());

    it('attaches (201) with the default stage post_plan, shows, lists, updates only what is sent, detaches (204)', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'mandatory' }));
      assertStatus(created, 201);
      const attachment = created.body.data;
      assert.match(attachment.id, /^wstask-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(attachment.type, 'workspace-tasks');
      assert.equal(attachment.attributes['enforcement-level'], 'mandatory');
      assert.deepEqual(attachment.attributes.stages, ['post_plan']);
      assert.equal(attachment.attributes.stage, 'post_plan');
      assert.deepEqual(attachment.relationships.task.data, { id: task.id, type: 'tasks' });
      assert.deepEqual(attachment.relationships.workspace.data, { id: workspace.id, type: 'workspaces' });
      assert.equal(attachment.links.self, `/api/v2/workspaces/${workspace.id}/tasks/${attachment.id}`);

      const shown = await org.owner.api.get(`/workspaces/${workspace.id}/tasks/${attachment.id}`);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.data, attachment);
      const listed = await org.owner.api.get(`/workspaces/${workspace.id}/tasks`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [attachment.id]);
      assert.equal(listed.body.meta.pagination['total-count'], 1);

      const patch = (attributes: Record<string, unknown>) =>
        org.owner.api.patch(`/workspaces/${workspace.id}/tasks/${attachment.id}`, { data: { type: 'workspace-tasks', attributes } });
      const staged = await patch({ stages: ['post_apply', 'pre_plan', 'pre_plan'] });
      assertStatus(staged, 200);
      assert.deepEqual(staged.body.data.attributes.stages, ['pre_plan', 'post_apply'], 'run order, no duplicates');
      assert.equal(staged.body.data.attributes['enforcement-level'], 'mandatory', 'unchanged');
      const advisory = await patch({ 'enforcement-level': 'advisory' });
      assert.deepEqual(advisory.body.data.attributes.stages, ['pre_plan', 'post_apply'], 'unchanged');
      assert.equal(advisory.body.data.attributes['enforcement-level'], 'advisory');
      const legacy = await patch({ stage: 'pre_apply' });
      assert.deepEqual(legacy.body.data.attributes.stages, ['pre_apply']);
      assert.equal(legacy.body.data.attributes.stage, 'pre_apply');

      assertStatus(await org.owner.api.delete(`/workspaces/${workspace.id}/tasks/${attachment.id}`), 204);
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}/tasks/${attachment.id}`), 404);
    });

    it('accepts the legacy single stage on create and echoes it', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await attachRunTask(org.owner.api, workspace.id, task.id, { stage: 'pre_apply' });
      assert.equal(created.body.data.attributes.stage, 'pre_apply');
      assert.deepEqual(created.body.data.attributes.stages, ['pre_apply']);
    });

    it('rejects bad input with 422 and a pointer', async () => {
      const org = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const foreignTask = await createRunTask(other.owner.api, other.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const post = (taskId: string | undefined, attributes: Record<string, unknown>) =>
        org.owner.api.post(`/workspaces/${workspace.id}/tasks`, attachBody(taskId, attributes));
      const pointer = async (taskId: string | undefined, attributes: Record<string, unknown>) => assertError(await post(taskId, attributes), 422).source?.pointer;

      assert.equal(await pointer(task.id, {}), '/data/attributes/enforcement-level');
      assert.equal(await pointer(task.id, { 'enforcement-level': 'strict' }), '/data/attributes/enforcement-level');
      assert.equal(await pointer(task.id, { 'enforcement-level': 'advisory', stages: [] }), '/data/attributes/stages');
      assert.equal(await pointer(task.id, { 'enforcement-level': 'advisory', stages: ['during_plan'] }), '/data/attributes/stages');
      assert.equal(await pointer(task.id, { 'enforcement-level': 'advisory', stages: 'post_plan' }), '/data/attributes/stages');
      assert.equal(await pointer(task.id, { 'enforcement-level': 'advisory', stage: 'later' }), '/data/attributes/stage');
      assert.equal(await pointer(undefined, { 'enforcement-level': 'advisory' }), '/data/relationships/task');
      assert.equal(await pointer('task-doesnotexist12345', { 'enforcement-level': 'advisory' }), '/data/relationships/task/data/id');
      assert.equal(await pointer(foreignTask.id, { 'enforcement-level': 'advisory' }), '/data/relationships/task/data/id', "another organization's task");
      await attachRunTask(org.owner.api, workspace.id, task.id);
      assertError(await post(task.id, { 'enforcement-level': 'mandatory' }), 422, /already attached/);
      assertError(await org.owner.api.patch(`/workspaces/${workspace.id}/tasks/wstask-doesnotexist1234`, { nonsense: 1 }), 404);
    });

    it('authorization: workspace readers read, manage-run-tasks attaches; others 403 or 404', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const attachment = await attachRunTask(org.owner.api, workspace.id, task.id);
      const plain = await addMember(ctx, org);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const runTasks = await memberWithAccess(ctx, org, { 'manage-run-tasks': true });

      assertError(await plain.api.get(`/workspaces/${workspace.id}/tasks`), 404);
      assertError(await plain.api.post(`/workspaces/${workspace.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'advisory' })), 404);
      assertStatus(await reader.api.get(`/workspaces/${workspace.id}/tasks`), 200);
      assertStatus(await reader.api.get(`/workspaces/${workspace.id}/tasks/${attachment.id}`), 200);
      assertError(await reader.api.post(`/workspaces/${workspace.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'advisory' })), 403);
      assertError(await reader.api.delete(`/workspaces/${workspace.id}/tasks/${attachment.id}`), 403);
      const patched = await runTasks.api.patch(`/workspaces/${workspace.id}/tasks/${attachment.id}`, {
        data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory' } },
      });
      assertStatus(patched, 200);
      const second = await createWorkspace(org.owner.api, org.name);
      assertStatus(await runTasks.api.post(`/workspaces/${second.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'advisory' })), 201);
    });

    it('Free edition: a run task attaches to at most ten workspaces (422 for the eleventh)', async () => {
      const org = await createOrganization(ctx);
      await subscribe(ctx, org, 'fs-free');
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspaces = [];
      for (let i = 0; i < 11; i++) workspaces.push(await createWorkspace(org.owner.api, org.name));
      for (const workspace of workspaces.slice(0, 10)) await attachRunTask(org.owner.api, workspace.id, task.id);
      const eleventh = await org.owner.api.post(`/workspaces/${workspaces[10]!.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'advisory' }));
      assertError(eleventh, 422, /at most 10 workspaces/);
      // Detaching one frees a place.
      const listed = await org.owner.api.get(`/workspaces/${workspaces[0]!.id}/tasks`);
      assertStatus(await org.owner.api.delete(`/workspaces/${workspaces[0]!.id}/tasks/${listed.body.data[0].id}`), 204);
      assertStatus(await org.owner.api.post(`/workspaces/${workspaces[10]!.id}/tasks`, attachBody(task.id, { 'enforcement-level': 'advisory' })), 201);
    });
  });
}
