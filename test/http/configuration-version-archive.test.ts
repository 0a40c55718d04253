/**
 * Issue 37: HCP's `POST /configuration-versions/:id/actions/archive`: an uploaded version that is not the workspace's
 * current one and that no unfinished run uses becomes `archived`, its stored archive deleted and its row kept; 409 in
 * HCP's words otherwise; 404/403 from the access table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createWorkspace, memberWithAccess, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

for (const dialect of testDialects()) {
  describe(`configuration version archive (${dialect})`, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES);
      org = await createOrganization(ctx);
    });
    after(() => ctx.close());

    const version = async (id: string) => {
      const shown = await org.owner.api.get(`/configuration-versions/${id}`);
      assertStatus(shown, 200);
      return shown.body.data;
    };
    const storedPieces = async (id: string) =>
      Number((await ctx.handle.db.selectFrom('configuration_archive_chunks').select((eb) => eb.fn.countAll<number>().as('n')).where('configuration_version_id', '=', id).executeTakeFirstOrThrow()).n);

    it('refuses the current version, archives an older one (bytes deleted, row kept), and refuses it again', async () => {
      const workspace = await createWorkspace(org.owner.api, org.name);
      const older = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      assertError(await org.owner.api.post(`/configuration-versions/${older}/actions/archive`), 409, /transition not allowed.*because it is current/s);
      assert.equal((await version(older)).attributes.status, 'uploaded', 'nothing changed');
      await uploadConfiguration(ctx, org.owner.api, workspace.id);
      assert.ok((await storedPieces(older)) > 0);

      assertStatus(await org.owner.api.post(`/configuration-versions/${older}/actions/archive`), 202);
      const archived = await version(older);
      assert.equal(archived.attributes.status, 'archived');
      assert.ok(archived.attributes['status-timestamps']['archived-at']);
      assert.equal(await storedPieces(older), 0, 'the stored archive is deleted');
      assertError(await org.owner.api.get(`/configuration-versions/${older}/download`), 404);
      assertError(await org.owner.api.post(`/configuration-versions/${older}/actions/archive`), 409, /because it is archived/);
      // A run cannot be made from it any more.
      const run = await org.owner.api.post('/runs', {
        data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } }, 'configuration-version': { data: { type: 'configuration-versions', id: older } } } },
      });
      assertError(run, 422);
    });

    it('refuses a version an unfinished run uses, and a pending (not uploaded) one', async () => {
      const workspace = await createWorkspace(org.owner.api, org.name);
      const used = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      const run = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, run, 'planned');
      await uploadConfiguration(ctx, org.owner.api, workspace.id);
      assertError(await org.owner.api.post(`/configuration-versions/${used}/actions/archive`), 409, /a run that is not finished uses it/);
      assert.ok((await storedPieces(used)) > 0, 'nothing deleted');
      assertStatus(await org.owner.api.post(`/runs/${run}/actions/discard`), 202);
      assertStatus(await org.owner.api.post(`/configuration-versions/${used}/actions/archive`), 202);

      const pending = await org.owner.api.post(`/workspaces/${workspace.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } });
      assertStatus(pending, 201);
      assertError(await org.owner.api.post(`/configuration-versions/${pending.body.data.id}/actions/archive`), 409, /because it is pending/);
    });

    it('the access table decides: a reader is refused (403), a stranger and an unknown id find nothing (404)', async () => {
      const workspace = await createWorkspace(org.owner.api, org.name);
      const older = await uploadConfiguration(ctx, org.owner.api, workspace.id);
      await uploadConfiguration(ctx, org.owner.api, workspace.id);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      const stranger = await addMember(ctx, org);
      assertError(await reader.api.post(`/configuration-versions/${older}/actions/archive`), 403);
      assertError(await stranger.api.post(`/configuration-versions/${older}/actions/archive`), 404);
      assertError(await org.owner.api.post('/configuration-versions/cv-doesnotexist/actions/archive'), 404);
      assert.equal((await version(older)).attributes.status, 'uploaded');
    });
  });
}
