import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ensureSiteToken } from '../../src/identity/site-token.js';
import { TokensRepository } from '../../src/identity/tokens.repository.js';
import { BUILD_VERSION } from '../../src/core/version.js';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createUser } from '../helpers/fixtures.js';
import { freePort } from '../helpers/postgres-server.js';
import { expectedSignature, MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRunTask, createWorkspace, memberWithAccess, organizationToken, subscribe } from '../helpers/run-fixtures.js';
import { createTestApp, freshDatabaseUrl, testDialects, type TestContext } from '../helpers/test-app.js';

/** Every key of a run task request body (HCP's payload_version 1). */
const PAYLOAD_KEYS = [
  'payload_version', 'stage', 'access_token', 'capabilities', 'configuration_version_download_url', 'configuration_version_id',
  'is_speculative', 'organization_name', 'plan_json_api_url', 'run_app_url', 'run_created_at', 'run_created_by', 'run_id', 'run_message',
  'task_result_callback_url', 'task_result_enforcement_level', 'task_result_id', 'vcs_branch', 'vcs_commit_url', 'vcs_pull_request_url',
  'vcs_repo_url', 'workspace_app_url', 'workspace_id', 'workspace_name', 'workspace_working_directory',
].sort();

const taskBody = (attributes: Record<string, unknown>) => ({ data: { type: 'tasks', attributes } });

for (const dialect of testDialects()) {
  describe(`run tasks (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_TASK_REQUEST_TIMEOUT: '0.3' });
      mock = await MockTaskService.start();
    });
    after(async () => {
      await mock.close();
      await ctx.close();
    });

    it('create sends a signed verification request with the full payload; hmac-key is write-only', async () => {
      const org = await createOrganization(ctx);
      mock.hmacKey = 'very-secret-key';
      const seen = mock.requests.length;
      const created = await org.owner.api.post(
        `/organizations/${org.name}/tasks`,
        taskBody({ name: 'checker', url: mock.url, category: 'task', description: 'checks things', 'hmac-key': 'very-secret-key' }),
      );
      assertStatus(created, 201);
      const task = created.body.data;
      assert.match(task.id, /^task-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(task.type, 'tasks');
      assert.deepEqual(
        { ...task.attributes, 'created-at': undefined, 'updated-at': undefined },
        { name: 'checker', url: mock.url, category: 'task', description: 'checks things', enabled: true, 'hmac-key': null, 'created-at': undefined, 'updated-at': undefined },
      );
      assert.deepEqual(task.relationships['workspace-tasks'].data, []);
      assert.equal(task.links.self, `/api/v2/tasks/${task.id}`);
      assert.ok(!created.text.includes('very-secret-key'));

      assert.equal(mock.requests.length, seen + 1, 'exactly one verification request');
      const request = mock.requests[seen]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/run-task');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['user-agent'], `Teamstage/${BUILD_VERSION}`);
      assert.ok(request.signatureValid, 'X-TFC-Task-Signature is the HMAC-SHA512 of the exact body');
      assert.equal(request.signature, expectedSignature(request.body, 'very-secret-key'));
      assert.match(request.signature!, /^[0-9a-f]{128}$/);
      const payload = request.json;
      assert.deepEqual(Object.keys(payload).sort(), PAYLOAD_KEYS);
      assert.equal(payload.payload_version, 1);
      assert.equal(payload.access_token, 'test-token');
      assert.deepEqual(payload.capabilities, { outcomes: true });
      assert.equal(payload.organization_name, org.name);
      assert.equal(typeof payload.is_speculative, 'boolean');
      for (const key of ['vcs_branch', 'vcs_commit_url', 'vcs_pull_request_url', 'vcs_repo_url']) assert.equal(payload[key], null, key);
      assert.match(payload.task_result_callback_url, /^http:\/\/127\.0\.0\.1:8080\/api\/v2\/task-results\/taskrs-[^/]+\/callback$/);
      assert.match(payload.configuration_version_download_url, /^http:\/\/127\.0\.0\.1:8080\/api\/v2\/configuration-versions\/cv-[^/]+\/download$/);
      assert.match(payload.plan_json_api_url, /^http:\/\/127\.0\.0\.1:8080\/api\/v2\/plans\/plan-[^/]+\/json-output$/);
      assert.match(payload.run_created_at, /Z$/);

      const shown = await org.owner.api.get(`/tasks/${task.id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes['hmac-key'], null);
      const listed = await org.owner.api.get(`/organizations/${org.name}/tasks`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [task.id]);
      assert.equal(listed.body.meta.pagination['total-count'], 1);
      assert.ok(!shown.text.includes('very-secret-key') && !listed.text.includes('very-secret-key'));
    });

    it('without an hmac key the signature header is present and empty', async () => {
      const org = await createOrganization(ctx);
      mock.hmacKey = null;
      const seen = mock.requests.length;
      await createRunTask(org.owner.api, org.name, mock.url);
      const request = mock.requests[seen]!;
      assert.equal(request.signature, '');
      assert.ok(request.signatureValid);
    });

    it('a task that does not answer 200 in time is refused with a 422 that tells nothing of the remote, and nothing is created', async () => {
      const org = await createOrganization(ctx);
      const failing = await MockTaskService.start({ respond: () => ({ status: 500 }) });
      const slow = await MockTaskService.start({ respond: () => ({ status: 200, delayMs: 1500 }) });
      const redirecting = await MockTaskService.start({ respond: () => ({ status: 302 }) });
      const closedPort = await freePort();
      try {
        const post = (url: string) => org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'n1', url, category: 'task' }));
        // The same detail whatever happened, so verification cannot map what the server reaches.
        const error500 = assertError(await post(failing.url), 422, /could not be verified/);
        assert.equal(error500.source?.pointer, '/data/attributes/url');
        assert.doesNotMatch(error500.detail!, /500/);
        assert.equal(assertError(await post(redirecting.url), 422).detail, error500.detail);
        // The slow service answers 200 after 1.5 s: only a request given up after TEAMSTAGE_TASK_REQUEST_TIMEOUT
        // (0.3 s here) is refused, so the 422 is the timeout's proof (a bound in ms would measure this machine).
        assert.equal(assertError(await post(slow.url), 422).detail, error500.detail);
        assert.equal(assertError(await post(`http://127.0.0.1:${closedPort}/hook`), 422).detail, error500.detail);
        const listed = await org.owner.api.get(`/organizations/${org.name}/tasks`);
        assert.deepEqual(listed.body.data, []);
      } finally {
        await Promise.all([failing.close(), slow.close(), redirecting.close()]);
      }
    });

    it('validates attributes (422 with pointers) before contacting the task', async () => {
      const org = await createOrganization(ctx);
      const seen = mock.requests.length;
      const post = (attributes: Record<string, unknown>) =>
        org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'valid', url: mock.url, category: 'task', ...attributes }));
      const pointer = async (attributes: Record<string, unknown>) => assertError(await post(attributes), 422).source?.pointer;
      assert.equal(await pointer({ name: 'has space' }), '/data/attributes/name');
      assert.equal(await pointer({ url: 'ftp://example.com/x' }), '/data/attributes/url');
      assert.equal(await pointer({ url: 'not a url' }), '/data/attributes/url');
      assert.equal(await pointer({ description: 'x'.repeat(301) }), '/data/attributes/description');
      assert.equal(await pointer({ category: 'policy' }), '/data/attributes/category');
      assert.equal(await pointer({ enabled: 'yes' }), '/data/attributes/enabled');
      assert.equal(await pointer({ 'hmac-key': 42 }), '/data/attributes/hmac-key');
      assertError(await org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'x', url: mock.url })), 422);
      assert.equal(mock.requests.length, seen, 'no verification request for invalid input');
      assertStatus(await post({ description: 'x'.repeat(300) }), 201);
      assertError(await post({ name: 'VALID' }), 422, /already been taken/);
    });

    it('PATCH changes only what is sent; a new URL is verified (with the new key) and refused when it fails', async () => {
      const org = await createOrganization(ctx);
      mock.hmacKey = null;
      const task = await createRunTask(org.owner.api, org.name, mock.url, { name: 'original', 'hmac-key': '' });
      const patch = (attributes: Record<string, unknown>) => org.owner.api.patch(`/tasks/${task.id}`, taskBody(attributes));

      let seen = mock.requests.length;
      const renamed = await patch({ name: 'renamed', enabled: false, description: 'now described' });
      assertStatus(renamed, 200);
      assert.equal(renamed.body.data.attributes.name, 'renamed');
      assert.equal(renamed.body.data.attributes.enabled, false);
      assert.equal(renamed.body.data.attributes.url, mock.url);
      assert.equal(mock.requests.length, seen, 'no verification without a URL change');

      const second = await MockTaskService.start({ hmacKey: 'rotated' });
      try {
        const moved = await patch({ url: second.url, 'hmac-key': 'rotated' });
        assertStatus(moved, 200);
        assert.equal(moved.body.data.attributes['hmac-key'], null);
        assert.equal(second.requests.length, 1);
        assert.ok(second.requests[0]!.signatureValid, 'signed with the new key');
        seen = mock.requests.length;
        second.answer(503);
        const refused = await patch({ url: `${second.url}/other` });
        assertError(refused, 422, /could not be verified/);
        assert.equal((await org.owner.api.get(`/tasks/${task.id}`)).body.data.attributes.url, second.url, 'the URL did not change');
      } finally {
        await second.close();
      }
      assertError(await org.owner.api.patch('/tasks/task-doesnotexist12345', { nonsense: true }), 404);
      assertError(await patch({ category: 'nope' }), 422);
    });

    it('delete: 422 while attached to a workspace, 204 once detached, then 404', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const attachment = await attachRunTask(org.owner.api, workspace.id, task.id);
      const shown = await org.owner.api.get(`/tasks/${task.id}`);
      assert.deepEqual(shown.body.data.relationships['workspace-tasks'].data, [{ id: attachment.id, type: 'workspace-tasks' }]);
      assertError(await org.owner.api.delete(`/tasks/${task.id}`), 422, /attached to 1 workspace/);
      assertStatus(await org.owner.api.delete(`/workspaces/${workspace.id}/tasks/${attachment.id}`), 204);
      assertStatus(await org.owner.api.delete(`/tasks/${task.id}`), 204);
      assertError(await org.owner.api.get(`/tasks/${task.id}`), 404);
    });

    it('include=workspace_tasks (and workspace_tasks.workspace for those who may read workspaces) on show and list; others 400', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const attachment = await attachRunTask(org.owner.api, workspace.id, task.id);
      const shown = await org.owner.api.get(`/tasks/${task.id}?include=workspace_tasks`);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.included.map((item: any) => [item.type, item.id]), [['workspace-tasks', attachment.id]]);
      const deep = await org.owner.api.get(`/organizations/${org.name}/tasks?include=workspace-tasks.workspace`);
      assertStatus(deep, 200);
      assert.deepEqual(deep.body.included.map((item: any) => item.type).sort(), ['workspace-tasks', 'workspaces']);
      const member = await addMember(ctx, org);
      const memberView = await member.api.get(`/tasks/${task.id}?include=workspace_tasks.workspace`);
      assertStatus(memberView, 200);
      assert.deepEqual(memberView.body.included.map((item: any) => item.type), ['workspace-tasks'], 'no workspaces for a member who cannot read them');
      assert.equal((await org.owner.api.get(`/tasks/${task.id}`)).body.included, undefined);
      assertError(await org.owner.api.get(`/tasks/${task.id}?include=organization`), 400, /include parameter/);
      assertError(await org.owner.api.get(`/organizations/${org.name}/tasks?include=nope`), 400, /include parameter/);
    });

    it('authorization: members list and show; manage-run-tasks, owners and the organization token change; outsiders get 404', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      const member = await addMember(ctx, org);
      const manager = await memberWithAccess(ctx, org, { 'manage-run-tasks': true });
      const outsider = await createUser(ctx);

      assertStatus(await member.api.get(`/organizations/${org.name}/tasks`), 200);
      assertStatus(await member.api.get(`/tasks/${task.id}`), 200);
      // Plain members may list and show run tasks but not create them: 404, as for anything not granted.
      assertError(await member.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'm1', url: mock.url, category: 'task' })), 404);
      assertError(await member.api.patch(`/tasks/${task.id}`, taskBody({ name: 'm2' })), 403);
      assertError(await member.api.delete(`/tasks/${task.id}`), 403);

      assertError(await outsider.api.get(`/organizations/${org.name}/tasks`), 404);
      assertError(await outsider.api.get(`/tasks/${task.id}`), 404);
      assertError(await outsider.api.patch(`/tasks/${task.id}`, taskBody({ name: 'o1' })), 404);
      assertError(await outsider.api.delete(`/tasks/${task.id}`), 404);

      const byManager = await manager.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'm3', url: mock.url, category: 'task' }));
      assertStatus(byManager, 201);
      assertStatus(await manager.api.patch(`/tasks/${byManager.body.data.id}`, taskBody({ name: 'm4' })), 200);
      assertStatus(await manager.api.delete(`/tasks/${byManager.body.data.id}`), 204);

      const orgToken = await organizationToken(ctx, org);
      assertStatus(await orgToken.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'm5', url: mock.url, category: 'task' })), 201);
    });

    it('Free edition: one run task per organization (422 for the second)', async () => {
      const org = await createOrganization(ctx);
      await subscribe(ctx, org, 'fs-free');
      await createRunTask(org.owner.api, org.name, mock.url);
      const seen = mock.requests.length;
      const second = await org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'second', url: mock.url, category: 'task' }));
      assertError(second, 422, /Free edition allows 1 run task/);
      assert.equal(mock.requests.length, seen, 'refused before any verification request');
      await subscribe(ctx, org, 'fs-business');
      assertStatus(await org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name: 'second', url: mock.url, category: 'task' })), 201);
    });

    it('Free edition: concurrent creates still leave exactly one run task', async () => {
      const org = await createOrganization(ctx);
      await subscribe(ctx, org, 'fs-free');
      const results = await Promise.all(
        ['c1', 'c2', 'c3', 'c4'].map((name) => org.owner.api.post(`/organizations/${org.name}/tasks`, taskBody({ name, url: mock.url, category: 'task' }))),
      );
      assert.deepEqual(results.map((result) => result.status).sort(), [201, 422, 422, 422]);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/tasks`)).body.data.length, 1);
    });
  });
}

async function organizationWithOwner(api: ApiClient, name: string): Promise<void> {
  const created = await api.post('/organizations', { data: { type: 'organizations', attributes: { name, email: `ops@${name}.test` } } });
  assert.equal(created.status, 201, created.text);
}

describe('run tasks: the hmac key never reaches the logs, even at trace level', () => {
  it('creates, verifies, updates and fails verification with a key without logging it', async () => {
    const database = await freshDatabaseUrl('sqlite');
    const lines: string[] = [];
    const config = loadConfig({
      DATABASE_URL: database.url,
      TEAMSTAGE_RATE_LIMIT: '0',
      TEAMSTAGE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-data-')),
      TEAMSTAGE_TASK_REQUEST_TIMEOUT: '0.3',
    });
    const handle = openDatabase(config.databaseUrl);
    await migrateToLatest(handle);
    await ensureSiteToken(new TokensRepository(handle.db), { configured: 'site-token-for-log-test-0123456789', dataDir: config.dataDir });
    const { app } = await buildApp({ config, handle, logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } } });
    const mock = await MockTaskService.start({ hmacKey: 'key-that-must-not-be-logged' });
    try {
      const site = new ApiClient(app, 'site-token-for-log-test-0123456789');
      const user = await site.post('/admin/users', { data: { type: 'users', attributes: { username: 'logger', email: 'logger@example.test' } } });
      const token = await site.post(`/users/${user.body.data.id}/authentication-tokens`, {});
      const api = new ApiClient(app, token.body.data.attributes.token);
      await organizationWithOwner(api, 'logorg');
      const created = await api.post('/organizations/logorg/tasks', taskBody({ name: 't', url: mock.url, category: 'task', 'hmac-key': 'key-that-must-not-be-logged' }));
      assert.equal(created.status, 201, created.text);
      mock.answer(500);
      const refused = await api.patch(`/tasks/${created.body.data.id}`, taskBody({ url: `${mock.url}/x`, 'hmac-key': 'another-key-not-to-log' }));
      assert.equal(refused.status, 422);
      assert.ok(lines.length > 0, 'the logger captured something');
      const log = lines.join('');
      assert.ok(!log.includes('key-that-must-not-be-logged'));
      assert.ok(!log.includes('another-key-not-to-log'));
    } finally {
      await mock.close();
      await app.close();
      await handle.close();
      await database.drop();
    }
  });
});


