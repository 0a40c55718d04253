/**
 * Issue 37: what go-tfe, the tfe provider and terraform's cloud block read and write on workspaces and
 * organizations, as HCP serves it: strict include, the list's searches, filters and sort, tags, remote state
 * consumers, setting-overwrites that follow the organization's default, runs count, the lock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, createWorkspace, memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, startAppWithTaskService, testDialects, type TestContext } from '../helpers/test-app.js';
import { opaPath } from '../helpers/opa.js';

for (const dialect of testDialects()) {
  describe(`workspaces as HCP serves them (${dialect})`, () => {
    let ctx: TestContext;
    let close: () => Promise<void>;
    before(async () => ({ ctx, close } = await startAppWithTaskService(dialect, SIMULATED_PLAN_CHANGES)));
    after(() => close());

    it('an include a route does not serve is a 400 naming what it does serve, on every route; a served one is included', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      for (const path of [
        `/workspaces/${workspace.id}?include=nonsense`,
        `/organizations/${org.name}/workspaces?include=current_run`,
        `/organizations/${org.name}?include=owners`,
        `/workspaces/${workspace.id}/tasks?include=task`,
        `/organizations/${org.name}/entitlement-set?include=x`,
      ]) {
        const error = assertError(await org.owner.api.get(path), 400, /include parameter/);
        assert.equal(error.source?.parameter, 'include', path);
      }
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}?include=current_run`), 400, /allowed: organization/);
      // An unknown id is still a 404 first.
      assertError(await org.owner.api.get('/workspaces/ws-nope?include=nonsense'), 404);
      // Routes that serve includes keep serving them.
      assertStatus(await org.owner.api.get(`/organizations/${org.name}/teams?include=users`), 200);

      const listed = await org.owner.api.get(`/organizations/${org.name}/workspaces?include=organization`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.included.map((item: any) => [item.type, item.id, item.attributes.email]), [['organizations', org.name, `ops@${org.name}.test`]]);
      const shown = await org.owner.api.get(`/organizations/${org.name}/workspaces/${workspace.name}?include=organization`);
      assertStatus(shown, 200);
      assert.equal(shown.body.included[0].id, org.name);
    });

    it('the list: search[name], search[wildcard-name] (prefix, suffix, both, none), search[tags], search[exclude-tags], sort', async () => {
      const org = await createOrganization(ctx);
      for (const name of ['api-prod', 'api-dev', 'web-prod', 'web_prod2']) await createWorkspace(org.owner.api, org.name, { name, 'tag-names': name.startsWith('api') ? ['api', name.slice(4)] : ['web'] });
      const names = async (query: string) => {
        const listed = await org.owner.api.get(`/organizations/${org.name}/workspaces?${query}`);
        assertStatus(listed, 200);
        assert.equal(listed.body.meta.pagination['total-count'], listed.body.data.length, query);
        return listed.body.data.map((ws: any) => ws.attributes.name);
      };
      assert.deepEqual(await names('search[name]=prod'), ['api-prod', 'web-prod', 'web_prod2']);
      assert.deepEqual(await names('search[wildcard-name]=*-prod'), ['api-prod', 'web-prod']);
      assert.deepEqual(await names('search[wildcard-name]=web*'), ['web-prod', 'web_prod2']);
      assert.deepEqual(await names('search[wildcard-name]=*_prod*'), ['web_prod2']);
      assert.deepEqual(await names('search[wildcard-name]=*-dev'), ['api-dev']);
      assert.deepEqual(await names('search[wildcard-name]=api'), []);
      assert.deepEqual(await names('search[wildcard-name]=API-DEV'), ['api-dev']);
      assert.deepEqual(await names('search[tags]=api'), ['api-dev', 'api-prod']);
      assert.deepEqual(await names('search[tags]=api,prod'), ['api-prod']);
      assert.deepEqual(await names('search[exclude-tags]=api'), ['web-prod', 'web_prod2']);
      assert.deepEqual(await names('sort=-name'), ['web_prod2', 'web-prod', 'api-prod', 'api-dev']);
      assert.deepEqual(await names('sort=name'), ['api-dev', 'api-prod', 'web-prod', 'web_prod2']);
      assertError(await org.owner.api.get(`/organizations/${org.name}/workspaces?sort=size`), 400, /cannot sort workspaces/);
    });

    it('filter[current-run][status] and sort=current-run.created-at follow the newest non-speculative run; runs count', async () => {
      const org = await createOrganization(ctx);
      const first = await createRunnableWorkspace(ctx, org.owner.api, org.name, { name: 'b-first', 'auto-apply': true });
      const second = await createRunnableWorkspace(ctx, org.owner.api, org.name, { name: 'a-second', 'auto-apply': true });
      await createWorkspace(org.owner.api, org.name, { name: 'c-none' });
      const run1 = await createRun(org.owner.api, first.id);
      await waitForRunStatus(org.owner.api, run1.data.id, 'applied');
      const run2 = await createRun(org.owner.api, second.id);
      await waitForRunStatus(org.owner.api, run2.data.id, 'applied');
      const names = async (query: string) =>
        (await org.owner.api.get(`/organizations/${org.name}/workspaces?${query}`)).body.data.map((ws: any) => ws.attributes.name);
      assert.deepEqual(await names('filter[current-run][status]=applied'), ['a-second', 'b-first']);
      assert.deepEqual(await names('filter[current-run][status]=planned,errored'), []);
      assert.deepEqual(await names('sort=current-run.created-at'), ['b-first', 'a-second', 'c-none']);
      assert.deepEqual(await names('sort=-current-run.created-at'), ['a-second', 'b-first', 'c-none']);
      const shown = await org.owner.api.get(`/workspaces/${first.id}`);
      assert.equal(shown.body.data.attributes['workspace-kpis-runs-count'], 1);
      const none = await org.owner.api.get(`/organizations/${org.name}/workspaces/c-none`);
      assert.equal(none.body.data.attributes['workspace-kpis-runs-count'], 0);
    });

    it('create and update keep operations, auto-destroy-at and the tags relationship; tag endpoints add, list and remove by id or name', async () => {
      const org = await createOrganization(ctx);
      const created = await org.owner.api.post(`/organizations/${org.name}/workspaces`, {
        data: {
          type: 'workspaces',
          attributes: { name: 'tagged', operations: false, 'auto-destroy-at': '2025-01-01T00:00:00Z' },
          relationships: { tags: { data: [{ type: 'tags', attributes: { name: 'tag1' } }, { type: 'tags', attributes: { name: 'tag2' } }] } },
        },
      });
      assertStatus(created, 201);
      const attributes = created.body.data.attributes;
      assert.equal(attributes.operations, false);
      assert.equal(attributes['execution-mode'], 'local');
      assert.equal(attributes['auto-destroy-at'], '2025-01-01T00:00:00.000Z');
      assert.deepEqual(attributes['tag-names'], ['tag1', 'tag2']);
      const id = created.body.data.id;

      assertStatus(await org.owner.api.post(`/workspaces/${id}/relationships/tags`, { data: [{ type: 'tags', attributes: { name: 'tag3' } }, { type: 'tags', attributes: { name: 'tag1' } }] }), 204);
      const listed = await org.owner.api.get(`/workspaces/${id}/relationships/tags`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((tag: any) => tag.attributes.name), ['tag1', 'tag2', 'tag3']);
      assert.match(listed.body.data[0].id, /^tag-/);

      // By id, on another workspace of the organization; an id of no tag here is a 422 and changes nothing.
      const other = await createWorkspace(org.owner.api, org.name);
      assertStatus(await org.owner.api.post(`/workspaces/${other.id}/relationships/tags`, { data: [{ type: 'tags', id: listed.body.data[2].id }] }), 204);
      assertError(await org.owner.api.post(`/workspaces/${other.id}/relationships/tags`, { data: [{ type: 'tags', id: 'tag-unknown' }] }), 422);
      assertError(await org.owner.api.post(`/workspaces/${other.id}/relationships/tags`, { data: [{ type: 'tags', attributes: { name: 'has space' } }] }), 422);
      assertError(await org.owner.api.post(`/workspaces/${other.id}/relationships/tags`, { data: [] }), 422);
      assert.deepEqual((await org.owner.api.get(`/workspaces/${other.id}`)).body.data.attributes['tag-names'], ['tag3']);

      assertStatus(await org.owner.api.delete(`/workspaces/${id}/relationships/tags`, { data: [{ type: 'tags', attributes: { name: 'tag1' } }, { type: 'tags', id: listed.body.data[1].id }, { type: 'tags', attributes: { name: 'never' } }] }), 204);
      const patched = await org.owner.api.patch(`/workspaces/${id}`, { data: { type: 'workspaces', attributes: { 'auto-destroy-at': null, operations: true } } });
      assertStatus(patched, 200);
      assert.deepEqual(patched.body.data.attributes['tag-names'], ['tag3']);
      assert.equal(patched.body.data.attributes['auto-destroy-at'], null);
      assert.equal(patched.body.data.attributes['execution-mode'], 'remote');
      assertError(await org.owner.api.patch(`/workspaces/${id}`, { data: { type: 'workspaces', attributes: { 'auto-destroy-at': 'soon' } } }), 422);
      // tag-names replaces the tags as a whole.
      const replaced = await org.owner.api.patch(`/workspaces/${id}`, { data: { type: 'workspaces', attributes: { 'tag-names': ['z', 'a'] } } });
      assert.deepEqual(replaced.body.data.attributes['tag-names'], ['z', 'a']);
      assert.deepEqual((await org.owner.api.get(`/workspaces/${id}/relationships/tags`)).body.data.map((tag: any) => tag.attributes.name), ['z', 'a']);

      // Readers read tags; only managers change them.
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      assertStatus(await reader.api.get(`/workspaces/${id}/relationships/tags`), 200);
      assertError(await reader.api.post(`/workspaces/${id}/relationships/tags`, { data: [{ type: 'tags', attributes: { name: 'x' } }] }), 403);
    });

    it('remote state consumers: added, listed, replaced, removed; only workspaces of the organization; readers cannot change them', async () => {
      const org = await createOrganization(ctx);
      const elsewhere = await createOrganization(ctx, undefined, org.owner);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const [a, b, c] = [await createWorkspace(org.owner.api, org.name), await createWorkspace(org.owner.api, org.name), await createWorkspace(org.owner.api, org.name)];
      const foreign = await createWorkspace(org.owner.api, elsewhere.name);
      const path = `/workspaces/${workspace.id}/relationships/remote-state-consumers`;
      const ids = async () => (await org.owner.api.get(path)).body.data.map((ws: any) => ws.id).sort();
      assertStatus(await org.owner.api.post(path, { data: [{ type: 'workspaces', id: a.id }, { type: 'workspaces', id: b.id }] }), 204);
      assert.deepEqual(await ids(), [a.id, b.id].sort());
      assertStatus(await org.owner.api.post(path, { data: [{ type: 'workspaces', id: a.id }] }), 204);
      assertError(await org.owner.api.post(path, { data: [{ type: 'workspaces', id: foreign.id }] }), 422);
      assert.deepEqual(await ids(), [a.id, b.id].sort());
      assertStatus(await org.owner.api.patch(path, { data: [{ type: 'workspaces', id: c.id }] }), 204);
      assert.deepEqual(await ids(), [c.id]);
      assertStatus(await org.owner.api.delete(path, { data: [{ type: 'workspaces', id: c.id }] }), 204);
      assert.deepEqual(await ids(), []);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      assertStatus(await reader.api.get(path), 200);
      assertError(await reader.api.post(path, { data: [{ type: 'workspaces', id: a.id }] }), 403);
    });

    it("setting-overwrites: a workspace without its own execution mode follows its organization's default, also when it changes", async () => {
      const org = await createOrganization(ctx);
      const following = await createWorkspace(org.owner.api, org.name);
      const own = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      assert.deepEqual(own.body.data.attributes['setting-overwrites'], { 'execution-mode': true, 'agent-pool': true });
      const patched = await org.owner.api.patch(`/organizations/${org.name}`, { data: { type: 'organizations', attributes: { 'default-execution-mode': 'local' } } });
      assertStatus(patched, 200);
      assert.equal(patched.body.data.attributes['default-execution-mode'], 'local');
      assert.equal((await org.owner.api.get(`/workspaces/${following.id}`)).body.data.attributes['execution-mode'], 'local');
      assert.equal((await org.owner.api.get(`/workspaces/${own.id}`)).body.data.attributes['execution-mode'], 'agent');
      const fresh = await createWorkspace(org.owner.api, org.name);
      assert.equal(fresh.body.data.attributes['execution-mode'], 'local');
      // Back to following: setting-overwrites execution-mode false.
      const back = await org.owner.api.patch(`/workspaces/${own.id}`, { data: { type: 'workspaces', attributes: { 'setting-overwrites': { 'execution-mode': false } } } });
      assert.equal(back.body.data.attributes['execution-mode'], 'local');
      assert.deepEqual(back.body.data.attributes['setting-overwrites'], { 'execution-mode': false, 'agent-pool': false });
      assertError(await org.owner.api.patch(`/organizations/${org.name}`, { data: { type: 'organizations', attributes: { 'default-execution-mode': 'cloud' } } }), 422);
    });

    it('lock: 409 when locked; only its holder unlocks (go-tfe\'s words), force-unlock by a manager; a locked workspace starts no run until unlocked', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const locked = await org.owner.api.post(`/workspaces/${workspace.id}/actions/lock`, { reason: 'freeze' });
      assertStatus(locked, 200);
      assert.equal(locked.body.data.attributes.locked, true);
      assert.equal(locked.body.data.relationships['locked-by'].data.type, 'users');
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/actions/lock`), 409);

      const run = await createRun(org.owner.api, workspace.id);
      const speculative = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      await waitForRunStatus(org.owner.api, speculative.data.id, 'planned_and_finished');
      const waiting = await org.owner.api.get(`/runs/${run.data.id}`);
      assert.equal(waiting.body.data.attributes.status, 'pending');
      assert.ok(waiting.body.data.attributes['position-in-queue'] >= 1);

      const manager = await memberWithAccess(ctx, org, { 'manage-workspaces': true });
      assertError(await manager.api.post(`/workspaces/${workspace.id}/actions/unlock`), 409, /is locked by User/);
      const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
      assertError(await reader.api.post(`/workspaces/${workspace.id}/actions/force-unlock`), 403);
      const unlocked = await manager.api.post(`/workspaces/${workspace.id}/actions/force-unlock`);
      assertStatus(unlocked, 200);
      assert.equal(unlocked.body.data.attributes.locked, false);
      assert.equal(unlocked.body.data.relationships['locked-by'].data, null);
      await waitForRunStatus(org.owner.api, run.data.id, 'applied');
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/actions/unlock`), 409, /not locked/);
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/actions/force-unlock`), 409);
      assertStatus(await org.owner.api.post(`/workspaces/${workspace.id}/actions/lock`), 200);
      // HCP's safe delete refuses a locked workspace (go-tfe reads "locked"); it is still there after.
      assertError(await org.owner.api.post(`/workspaces/${workspace.id}/actions/safe-delete`), 409, /locked/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces/${workspace.name}/actions/safe-delete`), 409, /locked/);
      assertStatus(await org.owner.api.get(`/workspaces/${workspace.id}`), 200);
      assertStatus(await org.owner.api.post(`/workspaces/${workspace.id}/actions/unlock`), 200);
      assertStatus(await org.owner.api.post(`/workspaces/${workspace.id}/actions/safe-delete`), 204);
      assertError(await org.owner.api.get(`/workspaces/${workspace.id}`), 404);
    });

    it("organizations: HCP's settings have HCP's defaults, a PATCH stores only what it sends, wrong types are 422; the entitlement set tells the truth", async () => {
      const org = await createOrganization(ctx);
      const shown = await org.owner.api.get(`/organizations/${org.name}`);
      const attributes = shown.body.data.attributes;
      assert.equal(attributes['default-execution-mode'], 'remote');
      assert.equal(attributes['user-tokens-enabled'], true);
      assert.equal(attributes['allow-force-delete-workspaces'], false);
      assert.equal(attributes['aggregated-commit-status-enabled'], false);
      assert.equal(attributes['remaining-testable-count'], 0);
      assert.equal(attributes['session-timeout'], 20160);
      const patched = await org.owner.api.patch(`/organizations/${org.name}`, {
        data: { type: 'organizations', attributes: { 'allow-force-delete-workspaces': true, 'session-timeout': 3600, 'send-passing-statuses-for-untriggered-speculative-plans': false } },
      });
      assertStatus(patched, 200);
      const again = (await org.owner.api.get(`/organizations/${org.name}`)).body.data.attributes;
      assert.equal(again['allow-force-delete-workspaces'], true);
      assert.equal(again['session-timeout'], 3600);
      assert.equal(again['user-tokens-enabled'], true);
      assert.deepEqual(patched.body.data.attributes, again);
      assertError(await org.owner.api.patch(`/organizations/${org.name}`, { data: { type: 'organizations', attributes: { 'user-tokens-enabled': 'yes' } } }), 422);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}`)).body.data.attributes['user-tokens-enabled'], true);
      const entitlements = (await org.owner.api.get(`/organizations/${org.name}/entitlement-set`)).body.data.attributes;
      assert.equal(entitlements['state-storage'], false);
      assert.equal(entitlements.sso, false);
      assert.equal(entitlements['audit-logging'], true);
    });

    it("GET /plans/:id/json-output-redacted: HCP's redacted plan for who may read the run; unknown or hidden plans are 404", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const run = await createRun(org.owner.api, workspace.id, { 'plan-only': true });
      const planned = await waitForRunStatus(org.owner.api, run.data.id, 'planned_and_finished');
      const planId = planned.relationships.plan.data.id;
      const redacted = await org.owner.api.get(`/plans/${planId}/json-output-redacted`);
      assertStatus(redacted, 200);
      assert.match(String(redacted.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(redacted.body).sort(), ['output_changes', 'plan_format_version', 'provider_format_version', 'provider_schemas', 'relevant_attributes', 'resource_changes', 'resource_drift']);
      assertError(await org.owner.api.get('/plans/plan-unknown/json-output-redacted'), 404);
      const outsider = await createOrganization(ctx);
      assertError(await outsider.owner.api.get(`/plans/${planId}/json-output-redacted`), 404);
    });

    it('runs keep save-plan (operation save_plan) and a plan-only run\'s terraform-version; terraform-version without plan-only is a 422', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const saved = await createRun(org.owner.api, workspace.id, { 'save-plan': true });
      assert.equal(saved.data.attributes['save-plan'], true);
      assert.equal(saved.data.attributes['terraform-version'], null);
      const listed = await org.owner.api.get(`/workspaces/${workspace.id}/runs?filter[operation]=save_plan`);
      assert.deepEqual(listed.body.data.map((run: any) => run.id), [saved.data.id]);
      const versioned = await createRun(org.owner.api, workspace.id, { 'plan-only': true, 'terraform-version': '1.0.0' });
      assert.equal(versioned.data.attributes['terraform-version'], '1.0.0');
      assert.equal((await org.owner.api.get(`/runs/${versioned.data.id}`)).body.data.attributes['terraform-version'], '1.0.0');
      const refused = await org.owner.api.post('/runs', {
        data: { type: 'runs', attributes: { 'terraform-version': '1.0.0' }, relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } },
      });
      assert.equal(assertError(refused, 422, /only valid when plan-only/).source?.pointer, '/data/attributes/terraform-version');
      assert.equal((await org.owner.api.get(`/workspaces/${workspace.id}/runs`)).body.data.length, 2);
    });

    it('organization create takes the settings (default-execution-mode, allow-force-delete-workspaces, …); a bad mode is 422 and creates nothing', async () => {
      const org = await createOrganization(ctx);
      const name = `${org.name}-b`;
      const created = await org.owner.api.post('/organizations', {
        data: { type: 'organizations', attributes: { name, email: 'ops@example.test', 'default-execution-mode': 'local', 'allow-force-delete-workspaces': true } },
      });
      assertStatus(created, 201);
      assert.equal(created.body.data.attributes['default-execution-mode'], 'local');
      assert.equal(created.body.data.attributes['allow-force-delete-workspaces'], true);
      assert.equal((await createWorkspace(org.owner.api, name)).body.data.attributes['execution-mode'], 'local');
      const refused = await org.owner.api.post('/organizations', { data: { type: 'organizations', attributes: { name: `${org.name}-c`, email: 'ops@example.test', 'default-execution-mode': 'cloud' } } });
      assertError(refused, 422);
      assertError(await org.owner.api.get(`/organizations/${org.name}-c`), 404);
    });

    it('GET /teams/:id/relationships/organization-memberships lists the memberships, paginated', async () => {
      const org = await createOrganization(ctx);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const member = await addMember(ctx, org);
      await addToTeam(org, team.id, member.username);
      const path = `/teams/${team.id}/relationships/organization-memberships`;
      const listed = await org.owner.api.get(path);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((item: any) => [item.type, item.id]), [['organization-memberships', member.membershipId]]);
      assert.equal(listed.body.meta.pagination['total-count'], 1);
      assertError(await org.owner.api.get('/teams/team-unknown/relationships/organization-memberships'), 404);
    });

    it('PATCH /account/update: a person changes their own username and email (only what is sent); taken, reserved or bad values are 422; tokens that are not a person get 404', async () => {
      const org = await createOrganization(ctx);
      const user = org.owner;
      const before = (await user.api.get('/account/details')).body.data;
      const unchanged = await user.api.patch('/account/update', { data: { type: 'users', attributes: {} } });
      assertStatus(unchanged, 200);
      assert.deepEqual(unchanged.body.data, before);
      const renamed = await user.api.patch('/account/update', { data: { type: 'users', attributes: { username: `${before.attributes.username}-new` } } });
      assertStatus(renamed, 200);
      assert.equal(renamed.body.data.attributes.username, `${before.attributes.username}-new`);
      assert.equal(renamed.body.data.attributes.email, before.attributes.email);
      const mailed = await user.api.patch('/account/update', { data: { type: 'users', attributes: { email: `new-${before.attributes.email}` } } });
      assert.equal(mailed.body.data.attributes.email, `new-${before.attributes.email}`);
      assert.equal((await user.api.get('/account/details')).body.data.attributes.username, `${before.attributes.username}-new`);
      const other = await addMember(ctx, org);
      assertError(await user.api.patch('/account/update', { data: { type: 'users', attributes: { username: other.username.toUpperCase() } } }), 422);
      assertError(await user.api.patch('/account/update', { data: { type: 'users', attributes: { username: 'api-team_x' } } }), 422);
      assertError(await user.api.patch('/account/update', { data: { type: 'users', attributes: { email: 'not-an-email' } } }), 422);
      assert.equal((await user.api.get('/account/details')).body.data.attributes.username, `${before.attributes.username}-new`);
      const orgToken = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
      const asOrg = user.api.as(orgToken.body.data.attributes.token);
      assertError(await asOrg.patch('/account/update', { data: { type: 'users', attributes: { username: 'x' } } }), 404);
    });
  });

  describe(`policy sets include their workspaces (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => (ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath() })));
    after(() => ctx.close());

    it('include=workspaces on show and list places the workspaces the caller may read in included; other names are 400', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const set = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
        data: { type: 'policy-sets', attributes: { name: 'gate', kind: 'opa' }, relationships: { workspaces: { data: [{ id: workspace.id, type: 'workspaces' }] } } },
      });
      assertStatus(set, 201);
      const shown = await org.owner.api.get(`/policy-sets/${set.body.data.id}?include=workspaces`);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.included.map((item: any) => [item.type, item.id, item.attributes.name]), [['workspaces', workspace.id, workspace.name]]);
      const list = await org.owner.api.get(`/organizations/${org.name}/policy-sets?include=workspaces`);
      assert.equal(list.body.included[0].id, workspace.id);
      assertError(await org.owner.api.get(`/policy-sets/${set.body.data.id}?include=projects`), 400, /allowed: workspaces, workspace-exclusions/);
      // A member without a workspace read right sees the ids, not the workspaces.
      const plain = await addMember(ctx, org);
      const hidden = await plain.api.get(`/policy-sets/${set.body.data.id}?include=workspaces`);
      assertStatus(hidden, 200);
      assert.equal(hidden.body.included, undefined);
    });
  });
}
