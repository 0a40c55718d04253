import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization } from '../helpers/fixtures.js';
import type { MockTaskService } from '../helpers/mock-task-service.js';
import {
  attachRunTask, createRun, createRunnableWorkspace, createRunTask, createWorkspace, memberWithAccess, organizationToken, waitForRunStatus,
} from '../helpers/run-fixtures.js';
import { startAppWithTaskService, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`workspaces (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let close: () => Promise<void>;
    before(async () => ({ ctx, mock, close } = await startAppWithTaskService(dialect)));
    after(() => close());

    it('creates (201), shows by id and by name, lists sorted and paginated', async () => {
      const org = await createOrganization(ctx);
      const created = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: 'Payments', 'auto-apply': true } },
      });
      assertStatus(created, 201);
      const workspace = created.body.data;
      assert.match(workspace.id, /^ws-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(workspace.type, 'workspaces');
      assert.equal(workspace.attributes.name, 'Payments');
      assert.equal(workspace.attributes['auto-apply'], true);
      assert.match(workspace.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(workspace.attributes.permissions['can-queue-run'], true);
      assert.deepEqual(workspace.relationships.organization.data, { id: org.name, type: 'organizations' });
      // HCP's links: self by organization and name (it reads the workspace), self-html the console page.
      assert.equal(workspace.links.self, `/api/v2/organizations/${org.name}/workspaces/Payments`);
      assert.equal(workspace.links['self-html'], `/app/${org.name}/workspaces/Payments`);
      const bySelf = await org.owner.api.get(workspace.links.self.replace(/^\/api\/v2/, ''));
      assertStatus(bySelf, 200);
      assert.equal(bySelf.body.data.id, workspace.id);
      // Created without an execution mode: it follows its organization's default (HCP's setting-overwrites).
      assert.deepEqual(workspace.attributes['setting-overwrites'], { 'execution-mode': false, 'agent-pool': false });

      const shown = await org.owner.api.get(`/workspaces/${workspace.id}`);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.data, workspace);
      const byName = await org.owner.api.get(`/organizations/${org.name}/workspaces/payments`);
      assertStatus(byName, 200);
      assert.equal(byName.body.data.id, workspace.id, 'names are looked up ignoring case');

      await createWorkspace(org.owner.api, org.name, { name: 'alpha' });
      await createWorkspace(org.owner.api, org.name, { name: 'zeta' });
      const list = await org.owner.api.get(`/organizations/${org.name}/workspaces?page%5Bsize%5D=2`);
      assertStatus(list, 200);
      assert.deepEqual(list.body.data.map((item: any) => item.attributes.name), ['alpha', 'Payments']);
      assert.equal(list.body.meta.pagination['total-count'], 3);
      assert.equal(list.body.meta.pagination['next-page'], 2);
      const second = await org.owner.api.get(`/organizations/${org.name}/workspaces?page[size]=2&page[number]=2`);
      assert.deepEqual(second.body.data.map((item: any) => item.attributes.name), ['zeta']);
      const searched = await org.owner.api.get(`/organizations/${org.name}/workspaces?search[name]=PAY`);
      assert.deepEqual(searched.body.data.map((item: any) => item.id), [workspace.id]);
    });

    it('rejects bad input with 422 and a pointer', async () => {
      const org = await createOrganization(ctx);
      const post = (attributes: unknown) => org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes } });
      assert.equal(assertError(await post({ name: 'bad name' }), 422).source?.pointer, '/data/attributes/name');
      assert.equal(assertError(await post({ name: '' }), 422).source?.pointer, '/data/attributes/name');
      assertError(await post({}), 422);
      assert.equal(assertError(await post({ name: 'ok', 'auto-apply': 'yes' }), 422).source?.pointer, '/data/attributes/auto-apply');
      await createWorkspace(org.owner.api, org.name, { name: 'taken' });
      assertError(await post({ name: 'TAKEN' }), 422, /already been taken/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces`, '{not json'), 422);
    });

    it('404 for unknown or invisible workspaces and organizations', async () => {
      const org = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      assertError(await org.owner.api.get('/workspaces/ws-doesnotexist12345'), 404);
      assertError(await other.owner.api.get(`/workspaces/${workspace.id}`), 404);
      assertError(await other.owner.api.get(`/organizations/${org.name}/workspaces`), 404);
      assertError(await other.owner.api.delete(`/workspaces/${workspace.id}`), 404);
      assertError(await org.owner.api.get(`/organizations/${org.name}/workspaces/nope`), 404);
    });

    it('authorization: readers read, managers and owners (and the organization token) create and delete', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const plain = await addMember(ctx, org);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const manager = await memberWithAccess(ctx, org, { 'manage-workspaces': true });
      const runTasks = await memberWithAccess(ctx, org, { 'manage-run-tasks': true });

      // A member without a read right sees the organization but none of its workspaces.
      const plainList = await plain.api.get(`/organizations/${org.name}/workspaces`);
      assertStatus(plainList, 200);
      assert.deepEqual(plainList.body.data, []);
      assertError(await plain.api.get(`/workspaces/${workspace.id}`), 404);
      assertError(await plain.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'x1' } } }), 404);

      assertStatus(await reader.api.get(`/workspaces/${workspace.id}`), 200);
      assertStatus(await runTasks.api.get(`/workspaces/${workspace.id}`), 200);
      assert.equal((await reader.api.get(`/organizations/${org.name}/workspaces`)).body.data.length, 1);
      const readerView = (await reader.api.get(`/workspaces/${workspace.id}`)).body.data;
      assert.equal(readerView.attributes.permissions['can-destroy'], false);
      assert.equal(readerView.attributes.permissions['can-queue-run'], false);
      assertError(await reader.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'x2' } } }), 403);
      assertError(await reader.api.delete(`/workspaces/${workspace.id}`), 403);

      const made = await manager.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'x3' } } });
      assertStatus(made, 201);
      assertStatus(await manager.api.delete(`/workspaces/${made.body.data.id}`), 204);

      const orgToken = await organizationToken(ctx, org);
      const byToken = await orgToken.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'x4' } } });
      assertStatus(byToken, 201);
      assert.equal(byToken.body.data.attributes.permissions['can-queue-run'], false, 'the organization token cannot queue runs');
    });

    it('the settings the tfe provider sets are stored and returned: HCP defaults, a PATCH changes only what it sends, wrong types are 422', async () => {
      const org = await createOrganization(ctx);
      const plain = await createWorkspace(org.owner.api, org.name);
      const defaults = plain.body.data.attributes;
      assert.equal(defaults['allow-destroy-plan'], true);
      assert.equal(defaults['file-triggers-enabled'], true);
      assert.equal(defaults['queue-all-runs'], false);
      assert.equal(defaults['speculative-enabled'], true);
      assert.equal(defaults['structured-run-output-enabled'], true);
      assert.equal(defaults['auto-apply-run-trigger'], false);
      assert.deepEqual(defaults['trigger-prefixes'], []);
      assert.equal(defaults['source-name'], null);
      assert.equal(defaults.source, 'tfe-api', 'made through the API (go-tfe TestWorkspacesReadSource)');

      const settings = {
        'allow-destroy-plan': false, 'assessments-enabled': true, 'auto-apply-run-trigger': true, 'file-triggers-enabled': false,
        'global-remote-state': true, 'queue-all-runs': true, 'speculative-enabled': false, 'structured-run-output-enabled': false,
        'trigger-prefixes': ['/modules'], 'trigger-patterns': ['/env/**/*'], 'tag-names': ['prod', 'network'],
        'source-name': 'tfe-provider', 'source-url': 'https://example.test/config', 'terraform-version': '1.9.0',
      };
      const made = await createWorkspace(org.owner.api, org.name, settings);
      const shown = (await org.owner.api.get(`/workspaces/${made.id}`)).body.data.attributes;
      for (const [key, value] of Object.entries(settings)) assert.deepEqual(shown[key], value, key);

      const patched = await org.owner.api.patch(`/workspaces/${made.id}`, { data: { type: 'workspaces', attributes: { 'queue-all-runs': false, 'tag-names': [] } } });
      assertStatus(patched, 200);
      const after = (await org.owner.api.get(`/workspaces/${made.id}`)).body.data.attributes;
      for (const [key, value] of Object.entries({ ...settings, 'queue-all-runs': false, 'tag-names': [] })) assert.deepEqual(after[key], value, key);

      const wrong = await org.owner.api.patch(`/workspaces/${made.id}`, { data: { type: 'workspaces', attributes: { 'allow-destroy-plan': 'yes' } } });
      assertError(wrong, 422);
      assert.equal((await org.owner.api.get(`/workspaces/${made.id}`)).body.data.attributes['allow-destroy-plan'], false, 'nothing changed');
    });

    it('safe-delete (by id and by name) and delete by name: 204, gone after; can-force-delete tells who may (HCP)', async () => {
      const org = await createOrganization(ctx);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const first = await createWorkspace(org.owner.api, org.name);
      assert.equal(first.body.data.attributes.permissions['can-force-delete'], true);
      const readerView = (await reader.api.get(`/workspaces/${first.id}`)).body.data;
      assert.equal(readerView.attributes.permissions['can-force-delete'], false);
      assertError(await reader.api.post(`/workspaces/${first.id}/actions/safe-delete`), 403);
      assertError(await org.owner.api.post('/workspaces/ws-unknown0000000000/actions/safe-delete'), 404);

      assertStatus(await org.owner.api.post(`/workspaces/${first.id}/actions/safe-delete`), 204);
      assertError(await org.owner.api.get(`/workspaces/${first.id}`), 404);

      const second = await createWorkspace(org.owner.api, org.name);
      assertError(await reader.api.post(`/organizations/${org.name}/workspaces/${second.name}/actions/safe-delete`), 403);
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/workspaces/${second.name}/actions/safe-delete`), 204);
      assertError(await org.owner.api.get(`/workspaces/${second.id}`), 404);
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces/${second.name}/actions/safe-delete`), 404);

      const third = await createWorkspace(org.owner.api, org.name);
      assertStatus(await org.owner.api.delete(`/organizations/${org.name}/workspaces/${third.name}`), 204);
      assertError(await org.owner.api.get(`/workspaces/${third.id}`), 404);
      assertError(await org.owner.api.delete(`/organizations/${org.name}/workspaces/${third.name}`), 404);
    });

    it('DELETE cascades runs, plans, applies, stages, results, configuration versions and attachments, even mid-run', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      await attachRunTask(org.owner.api, workspace.id, task.id, { stages: ['pre_plan', 'post_plan'] });
      const run = await createRun(org.owner.api, workspace.id);
      // Mid-run: the run has entered its pre-plan stage.
      await waitForRunStatus(org.owner.api, run.data.id, ['pre_plan_running', 'pre_plan_completed', 'planning', 'planned', 'post_plan_running']);
      const db = ctx.handle.db;
      const runId = run.data.id as string;
      const leftovers = async () => ({
        runs: (await db.selectFrom('runs').select('id').where('workspace_id', '=', workspace.id).execute()).length,
        plans: (await db.selectFrom('plans').select('id').where('run_id', '=', runId).execute()).length,
        applies: (await db.selectFrom('applies').select('id').where('run_id', '=', runId).execute()).length,
        stages: (await db.selectFrom('task_stages').select('id').where('run_id', '=', runId).execute()).length,
        results: (await db.selectFrom('task_results').select('id').where('run_id', '=', runId).execute()).length,
        versions: (await db.selectFrom('configuration_versions').select('id').where('workspace_id', '=', workspace.id).execute()).length,
        attachments: (await db.selectFrom('workspace_tasks').select('id').where('workspace_id', '=', workspace.id).execute()).length,
      });
      assert.deepEqual(await leftovers(), { runs: 1, plans: 1, applies: 1, stages: 2, results: 2, versions: 1, attachments: 1 });

      const deleted = await org.owner.api.delete(`/workspaces/${workspace.id}`, undefined, { 'content-type': 'application/vnd.api+json' });
      assertStatus(deleted, 204);
      assert.equal(deleted.text, '');
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}`), 404);
      assertError(await org.owner.api.get(`/runs/${run.data.id}`), 404);
      assertError(await org.owner.api.get(`/plans/${run.data.relationships.plan.data.id}`), 404);
      assertError(await org.owner.api.get(`/configuration-versions/${workspace.configurationVersionId}`), 404);
      assert.deepEqual(await leftovers(), { runs: 0, plans: 0, applies: 0, stages: 0, results: 0, versions: 0, attachments: 0 });
      // The run task itself stays (it belongs to the organization), now detached and deletable.
      assertStatus(await org.owner.api.delete(`/tasks/${task.id}`), 204);
    });
  });
}
