import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createUser } from '../helpers/fixtures.js';
import { createRun, createWorkspace, memberWithAccess, organizationToken, putUpload, tarGz, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const cvBody = (attributes: Record<string, unknown> = {}) => ({ data: { type: 'configuration-versions', attributes } });

for (const dialect of testDialects()) {
  describe(`configuration versions (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES);
    });
    after(() => ctx.close());

    async function download(token: string | undefined, id: string) {
      return ctx.app.inject({ method: 'GET', url: `/api/v2/configuration-versions/${id}/download`, headers: token ? { authorization: `Bearer ${token}` } : {} });
    }

    it('create returns an absolute, unguessable upload URL once; PUT without auth uploads; show reports uploaded', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ 'auto-queue-runs': false }));
      assertStatus(created, 201);
      const version = created.body.data;
      assert.match(version.id, /^cv-[1-9A-HJ-NP-Za-km-z]{16}$/);
      assert.equal(version.type, 'configuration-versions');
      assert.equal(version.attributes.status, 'pending');
      assert.equal(version.attributes['auto-queue-runs'], false);
      assert.equal(version.attributes.speculative, false);
      const uploadUrl: string = version.attributes['upload-url'];
      assert.ok(uploadUrl.startsWith(`${ctx.config.baseUrl}/api/v2/`), uploadUrl);
      const token = uploadUrl.split('/').pop()!;
      assert.ok(Buffer.from(token, 'base64url').length >= 32, 'at least 32 random bytes');
      assert.ok(!uploadUrl.includes(version.id), 'the URL does not reveal the version');
      const another = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      assert.notEqual(another.body.data.attributes['upload-url'], uploadUrl);

      const beforeUpload = await org.owner.api.get(`/configuration-versions/${version.id}`);
      assertStatus(beforeUpload, 200);
      assert.equal(beforeUpload.body.data.attributes['upload-url'], undefined, 'shown only at creation');
      assert.equal((await download(org.owner.token, version.id)).statusCode, 404, 'nothing to download yet');

      const archive = tarGz({ 'main.tf': 'resource "null_resource" "x" {}\n' });
      const uploaded = await putUpload(ctx, uploadUrl, archive);
      assert.equal(uploaded.statusCode, 200, uploaded.body);
      const shown = await org.owner.api.get(`/configuration-versions/${version.id}`);
      assert.equal(shown.body.data.attributes.status, 'uploaded');
      assert.match(shown.body.data.attributes['status-timestamps']['uploaded-at'], /Z$/);

      const fetched = await download(org.owner.token, version.id);
      assert.equal(fetched.statusCode, 200);
      assert.equal(fetched.headers['content-type'], 'application/octet-stream');
      assert.ok(fetched.rawPayload.equals(archive), 'downloads exactly what was uploaded');

      // HCP's upload URL takes a new archive (go-tfe uploads twice): it replaces the first until a run uses the version.
      const replacement = tarGz({ 'main.tf': 'resource "null_resource" "y" {}\n' });
      const again = await putUpload(ctx, uploadUrl, replacement);
      assert.equal(again.statusCode, 200, again.body);
      assert.ok((await download(org.owner.token, version.id)).rawPayload.equals(replacement), 'the second archive replaced the first');
      const runs = (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;
      assert.equal(runs.length, 0, 'a re-upload queues no run');
      const run = await org.owner.api.post('/runs', {
        data: {
          type: 'runs',
          relationships: {
            workspace: { data: { type: 'workspaces', id: workspace.id } },
            'configuration-version': { data: { type: 'configuration-versions', id: version.id } },
          },
        },
      });
      assertStatus(run, 201);
      const used = await putUpload(ctx, uploadUrl, archive);
      assert.equal(used.statusCode, 409, 'a run was made from it: its archive stays');
      assert.ok((await download(org.owner.token, version.id)).rawPayload.equals(replacement), 'unchanged');
    });

    it("provisional: echoed; not the workspace's current-configuration-version until a run made from it is applied", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const current = async () => (await org.owner.api.get(`/workspaces/${workspace.id}`)).body.data.relationships['current-configuration-version'].data;
      assert.equal(await current(), null);
      const plain = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      assert.deepEqual(await current(), { id: plain, type: 'configuration-versions' });
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ provisional: true, 'auto-queue-runs': false }));
      assertStatus(created, 201);
      assert.equal(created.body.data.attributes.provisional, true);
      assert.equal((await org.owner.api.get(`/configuration-versions/${created.body.data.id}`)).body.data.attributes.provisional, true);
      assert.equal((await putUpload(ctx, created.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      assert.deepEqual(await current(), { id: plain, type: 'configuration-versions' }, 'the provisional version is not current');
      // A run without a version takes the current one, not the newer provisional one.
      const implicit = await createRun(org.owner.api, workspace.id);
      assert.equal(implicit.data.relationships['configuration-version'].data.id, plain);
      await waitForRunStatus(org.owner.api, implicit.data.id, 'planned');
      assertStatus(await org.owner.api.post(`/runs/${implicit.data.id}/actions/discard`, {}), 202);
      const run = await org.owner.api.post('/runs', {
        data: {
          type: 'runs',
          attributes: { 'auto-apply': true },
          relationships: {
            workspace: { data: { type: 'workspaces', id: workspace.id } },
            'configuration-version': { data: { type: 'configuration-versions', id: created.body.data.id } },
          },
        },
      });
      assertStatus(run, 201);
      await waitForRunStatus(org.owner.api, run.body.data.id, 'applied');
      assert.deepEqual(await current(), { id: created.body.data.id, type: 'configuration-versions' }, 'applied: now current');
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ provisional: 'yes' })), 422);
    });

    it('accepts any content type (or none) for the upload, as raw bytes', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      for (const contentType of ['application/json', 'application/x-tar', 'text/plain', 'application/gzip']) {
        const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
        const uploaded = await putUpload(ctx, created.body.data.attributes['upload-url'], tarGz(), contentType);
        assert.equal(uploaded.statusCode, 200, `${contentType}: ${uploaded.body}`);
      }
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      const url = new URL(created.body.data.attributes['upload-url']);
      const bare = await ctx.app.inject({ method: 'PUT', url: url.pathname, payload: tarGz() });
      assert.equal(bare.statusCode, 200, bare.body);
    });

    it('refuses uploads that are not a tar.gz (422, still pending), unknown URLs (404) and over 100 MiB (413)', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      const uploadUrl = created.body.data.attributes['upload-url'];
      for (const [what, body] of [
        ['empty', Buffer.alloc(0)],
        ['plain text', Buffer.from('hello, this is not an archive at all')],
        ['gzip of text', gzipSync(Buffer.from('not a tar archive, just some text '.repeat(40)))],
        ['truncated gzip', tarGz().subarray(0, 20)],
      ] as const) {
        const response = await putUpload(ctx, uploadUrl, body);
        assert.equal(response.statusCode, 422, `${what}: ${response.body}`);
        assert.equal(JSON.parse(response.body).errors[0].title, 'invalid attribute');
      }
      assert.equal((await org.owner.api.get(`/configuration-versions/${created.body.data.id}`)).body.data.attributes.status, 'pending');

      const unknown = await ctx.app.inject({ method: 'PUT', url: '/api/v2/configuration-versions/uploads/not-a-real-token', payload: tarGz() });
      assert.equal(unknown.statusCode, 404);

      const huge = Buffer.alloc(100 * 1024 * 1024 + 1);
      huge[0] = 0x1f;
      huge[1] = 0x8b;
      const tooLarge = await putUpload(ctx, uploadUrl, huge);
      assert.equal(tooLarge.statusCode, 413);
      assert.equal(JSON.parse(tooLarge.body).errors[0].title, 'payload too large');
      assert.equal((await putUpload(ctx, uploadUrl, tarGz())).statusCode, 200, 'the URL still works after refused uploads');
    });

    it('an archive larger than one stored piece is kept in pieces and downloads byte for byte', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const created = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ 'auto-queue-runs': false }));
      // Random text barely compresses: a few MiB of archive, several stored pieces.
      const archive = tarGz({ 'main.tf': 'terraform {}\n', 'data.txt': randomBytes(3 * 1024 * 1024).toString('base64') });
      assert.ok(archive.length > 2 * 1024 * 1024, `${archive.length} bytes`);
      assert.equal((await putUpload(ctx, created.body.data.attributes['upload-url'], archive)).statusCode, 200);
      const pieces = await ctx.handle.db
        .selectFrom('configuration_archive_chunks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('configuration_version_id', '=', created.body.data.id)
        .executeTakeFirstOrThrow();
      assert.ok(Number(pieces.n) > 1, `${pieces.n} pieces`);
      const fetched = await download(org.owner.token, created.body.data.id);
      assert.equal(fetched.statusCode, 200);
      assert.equal(fetched.headers['content-length'], String(archive.length));
      assert.ok(fetched.rawPayload.equals(archive), 'downloads exactly what was uploaded');
      assert.ok((await ctx.services.repositories.configurationVersions.readArchive(created.body.data.id))?.equals(archive), 'and the executor reads the same');
    });

    it('download and plan JSON: readers yes; plain members and outsiders 404; no or bad token 401', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const versionId = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const plain = await addMember(ctx, org);
      const outsider = await createUser(ctx);
      assert.equal((await download(reader.token, versionId)).statusCode, 200);
      assert.equal((await download(plain.token, versionId)).statusCode, 404);
      assert.equal((await download(outsider.token, versionId)).statusCode, 404);
      assert.equal((await download(undefined, versionId)).statusCode, 401);
      assert.equal((await download('not-a-token', versionId)).statusCode, 401);
      assert.equal((await download(org.owner.token, 'cv-doesnotexist12345')).statusCode, 404);
      assert.equal((await download('not-a-token', 'cv-doesnotexist12345')).statusCode, 401);

      const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      await waitForRunStatus(org.owner.api, run.data.id, 'planned_and_finished');
      const planId = run.data.relationships.plan.data.id;
      const planJson = (token: string | undefined) =>
        ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${planId}/json-output`, headers: token ? { authorization: `Bearer ${token}` } : {} });
      const json = await planJson(reader.token);
      assert.equal(json.statusCode, 200);
      assert.match(String(json.headers['content-type']), /^application\/json/);
      const plan = JSON.parse(json.body);
      assert.equal(plan.format_version, '1.2');
      assert.equal(typeof plan.terraform_version, 'string');
      // The simulated change (TEAMSTAGE_SIMULATED_PLAN_CHANGES): one terraform_data to create.
      assert.deepEqual(plan.resource_changes.map((change: any) => [change.address, change.change.actions]), [['terraform_data.teamstage_simulated', ['create']]]);
      assert.equal(plan.planned_values.root_module.resources.length, 1);
      assert.equal((await planJson(plain.token)).statusCode, 404);
      assert.equal((await planJson(undefined)).statusCode, 401);
      assert.equal((await planJson('not-a-token')).statusCode, 401);
    });

    it('a token that is not an API token is checked as a run task access token of the runs built from the version', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const versionId = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      await waitForRunStatus(org.owner.api, run.data.id, 'planned_and_finished');
      const port = ctx.services.taskAccessTokens;
      const original = port.authorizeDownload;
      const asked: Array<[string, string]> = [];
      port.authorizeDownload = async (token: string, runId: string) => {
        asked.push([token, runId]);
        return token === 'task-access-token-for-the-run' && runId === run.data.id;
      };
      try {
        assert.equal((await download('task-access-token-for-the-run', versionId)).statusCode, 200);
        assert.deepEqual(asked, [['task-access-token-for-the-run', run.data.id]]);
        assert.equal((await download('some-other-token', versionId)).statusCode, 401);
        const planUrl = `/api/v2/plans/${run.data.relationships.plan.data.id}/json-output`;
        const plan = await ctx.app.inject({ method: 'GET', url: planUrl, headers: { authorization: 'Bearer task-access-token-for-the-run' } });
        assert.equal(plan.statusCode, 200);
      } finally {
        port.authorizeDownload = original;
      }
    });

    it('auto-queue-runs (the default) queues a run on upload, plan-only for a speculative version; not for the organization token', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const runsOf = async () => (await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data;

      const manual = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ 'auto-queue-runs': false }));
      assert.equal((await putUpload(ctx, manual.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      assert.deepEqual(await runsOf(), [], 'auto-queue-runs false: no run');

      const automatic = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      assert.equal(automatic.body.data.attributes['auto-queue-runs'], true);
      assert.equal((await putUpload(ctx, automatic.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      const [queued] = await runsOf();
      assert.deepEqual(queued.relationships['configuration-version'].data, { id: automatic.body.data.id, type: 'configuration-versions' });
      assert.deepEqual(queued.relationships['created-by'].data, { id: org.owner.id, type: 'users' });
      assert.equal(queued.attributes['plan-only'], false);
      await waitForRunStatus(org.owner.api, queued.id, 'planned');

      const speculative = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ speculative: true }));
      assert.equal((await putUpload(ctx, speculative.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      const [planOnly] = await runsOf();
      assert.equal(planOnly.attributes['plan-only'], true);
      await waitForRunStatus(org.owner.api, planOnly.id, 'planned_and_finished');

      const orgToken = await organizationToken(ctx, org);
      const byToken = await orgToken.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      assertStatus(byToken, 201);
      assert.equal(byToken.body.data.attributes['auto-queue-runs'], false, 'the organization token cannot queue runs');
      assert.equal((await putUpload(ctx, byToken.body.data.attributes['upload-url'], tarGz())).statusCode, 200);
      assert.equal((await runsOf()).length, 2);
    });

    it('authorization: managers create, readers 403, plain members 404; show needs read access', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const manager = await memberWithAccess(ctx, org, { 'manage-workspaces': true });
      const plain = await addMember(ctx, org);
      assertError(await reader.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody()), 403);
      assertError(await plain.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody()), 404);
      const created = await manager.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody());
      assertStatus(created, 201);
      assertStatus(await reader.api.get(`/configuration-versions/${created.body.data.id}`), 200);
      assertError(await plain.api.get(`/configuration-versions/${created.body.data.id}`), 404);
      assertError(await new ApiClient(ctx.app).get(`/configuration-versions/${created.body.data.id}`), 401);
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ speculative: 'no' })), 422);
    });

    it("GET /workspaces/:id/configuration-versions lists the workspace's versions newest first, as show shows them, paginated; readers only", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const other = await createWorkspace(org.owner.api, org.name);
      await uploadConfiguration(ctx, org.owner.api, other.id);
      const older = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      // Versions made in one millisecond have no order between them.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const newer = (await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, cvBody({ 'auto-queue-runs': false }))).body.data.id;
      const list = await org.owner.api.get(`/workspaces/${workspace.id}/configuration-versions`);
      assertStatus(list, 200);
      assert.deepEqual(list.body.data.map((version: any) => version.id), [newer, older]);
      for (const version of list.body.data) {
        // The upload URL's token is stored only as a hash: shown once, at create, never in a list.
        assert.equal(version.attributes['upload-url'], undefined);
        assert.deepEqual(version, (await org.owner.api.get(`/configuration-versions/${version.id}`)).body.data);
      }
      assert.equal(list.body.meta.pagination['total-count'], 2);
      assert.equal(list.body.meta.pagination['current-page'], 1);
      const past = await org.owner.api.get(`/workspaces/${workspace.id}/configuration-versions?page[number]=999&page[size]=100`);
      assertStatus(past, 200);
      assert.deepEqual(past.body.data, []);
      assert.equal(past.body.meta.pagination['current-page'], 999);
      assert.equal(past.body.meta.pagination['total-count'], 2);
      const second = await org.owner.api.get(`/workspaces/${workspace.id}/configuration-versions?page[size]=1&page[number]=2`);
      assert.deepEqual(second.body.data.map((version: any) => version.id), [older]);
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}/configuration-versions?include=run`), 400, /include parameter/);

      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      assertStatus(await reader.api.get(`/workspaces/${workspace.id}/configuration-versions`), 200);
      const plain = await addMember(ctx, org);
      assertError(await plain.api.get(`/workspaces/${workspace.id}/configuration-versions`), 404);
      assertError(await org.owner.api.get('/workspaces/ws-doesnotexist12345/configuration-versions'), 404);
    });
  });
}
