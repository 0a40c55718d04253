import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createTeam, createUser } from '../helpers/fixtures.js';
import { organizationToken, waitForRunStatus } from '../helpers/run-fixtures.js';
import { ScriptedTaskService, gatedWorkspace, startListeningApp, startRun, stagesOf } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

const runBody = (workspaceId: string) => ({
  data: { type: 'runs', attributes: { message: 'by a minted token' }, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
});

/**
 * Issue 14, item 12: the organization token cannot create runs or override (those need a person), and no token it
 * mints may do either: not the owners team's (refused), nor another team's that it grants the rights to.
 */
for (const dialect of testDialects()) {
  describe(`the organization token mints nothing more than itself (${dialect})`, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect);
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.mock.close();
      await ctx.close();
    });

    it('refuses to create owners-team tokens, legacy and multi (403), and creates none', async () => {
      const gated = await gatedWorkspace(ctx, service.mock, 'pass');
      const org = gated.org;
      const asOrganization = await organizationToken(ctx, org);
      assertStatus(await asOrganization.get(`/teams/${org.ownersTeamId}`), 200);

      assertError(await asOrganization.post(`/teams/${org.ownersTeamId}/authentication-token`, {}), 403, /owners team/);
      assertError(
        await asOrganization.post(`/teams/${org.ownersTeamId}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } }),
        403,
        /owners team/,
      );
      const tokens = await org.owner.api.get(`/teams/${org.ownersTeamId}/authentication-tokens`);
      assertStatus(tokens, 200);
      assert.equal(tokens.body.data.length, 0);
      // An owner still may.
      assertStatus(await org.owner.api.post(`/teams/${org.ownersTeamId}/authentication-token`, {}), 201);
      // Nor user tokens, for anyone.
      assertError(await asOrganization.post(`/users/${org.owner.id}/authentication-tokens`, {}), 404);
    });

    it('a token it mints for a team it granted manage-workspaces and manage-run-tasks cannot create runs or override', async () => {
      const gated = await gatedWorkspace(ctx, service.mock, 'fail', { enforcement: 'mandatory' });
      const org = gated.org;
      const runId = await startRun(gated);
      await waitForRunStatus(org.owner.api, runId, 'post_plan_awaiting_decision');
      const stage = (await stagesOf(org.owner.api, runId))[0];

      const asOrganization = await organizationToken(ctx, org);
      const team = await createTeam(
        ctx,
        org,
        { 'organization-access': { 'manage-workspaces': true, 'manage-run-tasks': true, 'manage-membership': true, 'manage-teams': true } },
        asOrganization,
      );
      const minted = await asOrganization.post(`/teams/${team.id}/authentication-token`, {});
      assertStatus(minted, 201);
      const asMinted = new ApiClient(ctx.app, minted.body.data.attributes.token);

      assertStatus(await asMinted.get(`/workspaces/${gated.workspace.id}`), 200);
      assertError(await asMinted.post('/runs', runBody(gated.workspace.id)), 403);
      const shownStage = await asMinted.get(`/task-stages/${stage.id}`);
      assertStatus(shownStage, 200);
      assert.equal(shownStage.body.data.attributes.permissions['can-override'], false);
      assertError(await asMinted.post(`/task-stages/${stage.id}/actions/override`), 403);

      // Nor does a token that token mints in turn (it holds manage-teams over its own team).
      const second = await asMinted.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'again' } } });
      assertStatus(second, 201);
      const asSecond = new ApiClient(ctx.app, second.body.data.attributes.token);
      assertError(await asSecond.post('/runs', runBody(gated.workspace.id)), 403);
      assertError(await asSecond.post(`/task-stages/${stage.id}/actions/override`), 403);

      // The same team's token minted by an owner, a person, may do both.
      const byOwner = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'by-owner' } } });
      assertStatus(byOwner, 201);
      const asOwnerMinted = new ApiClient(ctx.app, byOwner.body.data.attributes.token);
      assertStatus(await asOwnerMinted.post(`/task-stages/${stage.id}/actions/override`, { comment: 'ok' }, { 'content-type': 'application/json' }), 200);
      assertStatus(await asOwnerMinted.post('/runs', runBody(gated.workspace.id)), 201);
    });

    it('a user is still minted tokens only by itself or the site admin', async () => {
      const user = await createUser(ctx);
      const gated = await gatedWorkspace(ctx, service.mock, 'pass');
      const asOrganization = await organizationToken(ctx, gated.org);
      assertError(await asOrganization.post(`/users/${user.id}/authentication-tokens`, {}), 404);
    });
  });
}
