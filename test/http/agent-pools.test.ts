/**
 * Agent pools and agent tokens (issue 36): HCP's `/organizations/:org/agent-pools`, `/agent-pools/:id` (with
 * `organization-scoped` and allowed workspaces), `/agent-pools/:id/authentication-tokens`,
 * `/authentication-tokens/:id`; an agent-mode workspace names its pool (`agent-pool-id`, the `agent-pool`
 * relationship); an agent token drives its pool's workspaces' runs through the pipeline protocol and gets 404 for
 * any other workspace and 401 from every other endpoint. Both databases.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createWorkspace, memberWithAccess, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { AGENT_TOKEN_ROUTES } from '../../src/http/agent-token-routes.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const JSON_BODY = { 'content-type': 'application/json' };

const poolBody = (attributes: Record<string, unknown>, allowed?: string[]) => ({
  data: {
    type: 'agent-pools',
    attributes,
    ...(allowed ? { relationships: { 'allowed-workspaces': { data: allowed.map((id) => ({ id, type: 'workspaces' })) } } } : {}),
  },
});

async function createPool(org: TestOrganization, attributes: Record<string, unknown> = {}, allowed?: string[]) {
  const created = await org.owner.api.post(`/organizations/${org.name}/agent-pools`, poolBody({ name: `pool-${Math.random().toString(36).slice(2, 8)}`, ...attributes }, allowed));
  assert.equal(created.status, 201, created.text);
  return created.body.data;
}

async function agentToken(ctx: TestContext, org: TestOrganization, poolId: string): Promise<{ api: ApiClient; token: string; id: string }> {
  const created = await org.owner.api.post(`/agent-pools/${poolId}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } });
  assert.equal(created.status, 201, created.text);
  const token = created.body.data.attributes.token as string;
  return { api: new ApiClient(ctx.app, token), token, id: created.body.data.id };
}

async function put(ctx: TestContext, token: string, url: string, body: Buffer | string, contentType = 'application/json') {
  const response = await ctx.app.inject({ method: 'PUT', url: `/api/v2${url}`, headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload: body });
  return { status: response.statusCode, headers: response.headers, body: undefined, text: response.body };
}

for (const dialect of testDialects()) {
  describe(`agent pools and agent tokens (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect);
    });
    after(async () => {
      await ctx.close();
    });

    it("HCP's API: create, list, show, update (allowed workspaces), delete; manage-agent-pools manages, members read, others find nothing", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      const pool = await createPool(org, { 'organization-scoped': false }, [workspace.id]);
      assert.match(pool.id, /^apool-/);
      assert.equal(pool.type, 'agent-pools');
      assert.equal(pool.attributes['organization-scoped'], false);
      assert.deepEqual(pool.relationships['allowed-workspaces'].data, [{ id: workspace.id, type: 'workspaces' }]);
      assert.deepEqual((await org.owner.api.get(`/agent-pools/${pool.id}`)).body.data, pool);
      const listed = await org.owner.api.get(`/organizations/${org.name}/agent-pools`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [pool.id]);

      const renamed = await org.owner.api.patch(`/agent-pools/${pool.id}`, poolBody({ name: 'renamed', 'organization-scoped': true }, []));
      assertStatus(renamed, 200);
      assert.deepEqual([renamed.body.data.attributes.name, renamed.body.data.attributes['organization-scoped'], renamed.body.data.relationships['allowed-workspaces'].data], ['renamed', true, []]);
      assertError(await org.owner.api.post(`/organizations/${org.name}/agent-pools`, poolBody({ name: 'renamed' })), 422, /already been taken/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/agent-pools`, poolBody({})), 422, /name is required/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/agent-pools`, poolBody({ name: 'x' }, ['ws-nope'])), 404);

      const plain = await memberWithAccess(ctx, org, {});
      assertStatus(await plain.api.get(`/agent-pools/${pool.id}`), 200);
      assertError(await plain.api.post(`/organizations/${org.name}/agent-pools`, poolBody({ name: 'mine' })), 403, /manage-agent-pools/);
      assertError(await plain.api.patch(`/agent-pools/${pool.id}`, poolBody({ name: 'mine' })), 403);
      assertError(await plain.api.post(`/agent-pools/${pool.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: {} } }), 403);
      const manager = await memberWithAccess(ctx, org, { 'manage-agent-pools': true });
      const managed = await manager.api.post(`/organizations/${org.name}/agent-pools`, poolBody({ name: 'managed' }));
      assertStatus(managed, 201);
      assertStatus(await manager.api.delete(`/agent-pools/${managed.body.data.id}`), 204);
      assertError(await manager.api.get(`/agent-pools/${managed.body.data.id}`), 404, /agent pool not found/);
      const outsider = await createOrganization(ctx);
      assertError(await outsider.owner.api.get(`/agent-pools/${pool.id}`), 404);
    });

    it("lists as go-tfe asks: q, sort by created-at either way, the pools a workspace (by name) may use", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createWorkspace(org.owner.api, org.name);
      // created-at has millisecond resolution: each pool is made after the clock moved on, so the order is defined.
      const nextMillisecond = async () => { const now = Date.now(); while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve)); };
      const first = await createPool(org, { name: 'alpha-pool' });
      await nextMillisecond();
      const second = await createPool(org, { name: 'beta-pool', 'organization-scoped': false }, [workspace.id]);
      await nextMillisecond();
      const third = await createPool(org, { name: 'gamma-pool', 'organization-scoped': false });
      const ids = async (query: string) => (await org.owner.api.get(`/organizations/${org.name}/agent-pools${query}`)).body.data.map((item: any) => item.id);
      assert.deepEqual(await ids('?q=BETA'), [second.id]);
      assert.deepEqual(await ids('?sort=-created-at'), [third.id, second.id, first.id]);
      assert.deepEqual(await ids('?sort=created-at'), [first.id, second.id, third.id]);
      assert.deepEqual(await ids(`?filter%5Ballowed_workspaces%5D%5Bname%5D=${workspace.name}`), [first.id, second.id]);
      // go-tfe names an agent token's type `agent-tokens`.
      const token = await org.owner.api.post(`/agent-pools/${first.id}/authentication-tokens`, { data: { type: 'agent-tokens', attributes: { description: 'go-tfe' } } });
      assertStatus(token, 201);
      assert.equal(token.body.data.attributes.description, 'go-tfe');
    });

    it("agent tokens: shown once, listed without the secret, read and revoked by id; the pool's deletion revokes them", async () => {
      const org = await createOrganization(ctx);
      const pool = await createPool(org);
      const { token, id } = await agentToken(ctx, org, pool.id);
      const listed = await org.owner.api.get(`/agent-pools/${pool.id}/authentication-tokens`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [id]);
      assert.equal(listed.body.data[0].attributes.token, undefined);
      const shown = await org.owner.api.get(`/authentication-tokens/${id}`);
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes.token, undefined);
      const plain = await memberWithAccess(ctx, org, {});
      assertError(await plain.api.delete(`/authentication-tokens/${id}`), 403);
      assertStatus(await org.owner.api.delete(`/authentication-tokens/${id}`), 204);
      assertError(await new ApiClient(ctx.app, token).get(`/agent-pools/${pool.id}`), 401);

      const second = await agentToken(ctx, org, pool.id);
      assertStatus(await org.owner.api.delete(`/agent-pools/${pool.id}`), 204);
      assertError(await second.api.post('/runs', {}), 401);
      const trail = await ctx.handle.db.selectFrom('audit_trail').select(['action']).where('resource_type', '=', 'authentication_token').where('resource_id', '=', id).orderBy('seq').execute();
      assert.deepEqual(trail.map((row) => row.action), ['create', 'destroy']);
    });

    it('an agent-mode workspace names its pool: agent-pool-id only in agent mode, from the organization, allowed when not organization-scoped', async () => {
      const org = await createOrganization(ctx);
      const pool = await createPool(org);
      const created = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent', 'agent-pool-id': pool.id });
      assert.deepEqual(created.body.data.relationships['agent-pool'].data, { id: pool.id, type: 'agent-pools' });
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'r1', 'agent-pool-id': pool.id } } }), 422, /only with execution-mode agent/);
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'r2', 'execution-mode': 'agent', 'agent-pool-id': 'apool-nope' } } }), 422, /not found/);
      const other = await createOrganization(ctx);
      const foreign = await createPool(other);
      assertError(await org.owner.api.post(`/organizations/${org.name}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'r3', 'execution-mode': 'agent', 'agent-pool-id': foreign.id } } }), 422, /not found/);

      const scoped = await createPool(org, { 'organization-scoped': false });
      const plain = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      assertError(await org.owner.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'agent-pool-id': scoped.id } } }), 422, /allowed workspaces/);
      assertStatus(await org.owner.api.patch(`/agent-pools/${scoped.id}`, poolBody({}, [plain.id])), 200);
      const named = await org.owner.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'agent-pool-id': scoped.id } } });
      assertStatus(named, 200);
      assert.deepEqual(named.body.data.relationships['agent-pool'].data, { id: scoped.id, type: 'agent-pools' });
      assert.deepEqual((await org.owner.api.get(`/agent-pools/${scoped.id}`)).body.data.relationships.workspaces.data, [{ id: plain.id, type: 'workspaces' }]);
      const remote = await org.owner.api.patch(`/workspaces/${plain.id}`, { data: { type: 'workspaces', attributes: { 'execution-mode': 'remote' } } });
      assert.equal(remote.body.data.relationships['agent-pool'].data, null, 'leaving agent mode leaves the pool');

      // A pool a workspace names is not deleted (the workspace would be left in agent mode with no pool).
      assertError(await org.owner.api.delete(`/agent-pools/${pool.id}`), 409, /used by 1 workspace: move it/);
      assertStatus(await org.owner.api.get(`/agent-pools/${pool.id}`), 200);
      assertStatus(await org.owner.api.patch(`/workspaces/${created.body.data.id}`, { data: { type: 'workspaces', attributes: { 'execution-mode': 'remote' } } }), 200);
      assertStatus(await org.owner.api.delete(`/agent-pools/${pool.id}`), 204);
    });

    it("an agent token drives its pool's workspace through the whole pipeline, gets 404 for another workspace and 401 everywhere else", async () => {
      const org = await createOrganization(ctx);
      const pool = await createPool(org);
      const mine = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent', 'agent-pool-id': pool.id });
      const other = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      const agent = await agentToken(ctx, org, pool.id);
      const api = agent.api;

      assertStatus(await api.get(`/workspaces/${mine.id}`), 200);
      assertStatus(await api.get(`/organizations/${org.name}/workspaces/${mine.name}`), 200);
      assertError(await api.get(`/workspaces/${other.id}`), 404);
      assertError(await api.get(`/organizations/${org.name}/workspaces/${other.name}`), 404);
      assertError(await api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: other.id } } } } }), 404);
      await uploadConfiguration(ctx, org.owner.api, other.id);
      const othersRun = await createRun(org.owner.api, other.id);
      await waitForRunStatus(org.owner.api, othersRun.data.id, 'plan_queued');
      assertError(await api.get(`/runs/${othersRun.data.id}`), 404);
      assertError(await api.post(`/plans/${othersRun.data.relationships.plan.data.id}/actions/claim`), 404);

      await uploadConfiguration(ctx, api, mine.id);
      const run = await createRun(api, mine.id, { message: 'from the pipeline' });
      const planId = run.data.relationships.plan.data.id;
      const applyId = run.data.relationships.apply.data.id;
      await waitForRunStatus(api, run.data.id, 'plan_queued');
      assertStatus(await api.post(`/plans/${planId}/actions/claim`), 200);
      assertStatus(await put(ctx, agent.token, `/plans/${planId}/json-output`, fs.readFileSync(path.join(FIXTURES, '120_basic', 'plan.json'))), 200);
      assertStatus(await put(ctx, agent.token, `/plans/${planId}/log`, 'planned\n', 'text/plain'), 200);
      assertStatus(await api.request('POST', `/plans/${planId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      await waitForRunStatus(api, run.data.id, 'planned');
      assertStatus(await api.post(`/runs/${run.data.id}/actions/apply`, {}, JSON_BODY), 202);
      await waitForRunStatus(api, run.data.id, 'apply_queued');
      assertStatus(await api.post(`/applies/${applyId}/actions/claim`), 200);
      assertStatus(await api.request('POST', `/applies/${applyId}/actions/report`, { status: 'finished' }, JSON_BODY), 200);
      assert.equal((await waitForRunStatus(api, run.data.id, 'applied')).attributes.status, 'applied');

      // Everything that is not the pipeline's: 401, whatever it names.
      const refused = [
        api.get(`/organizations/${org.name}`),
        api.get(`/organizations/${org.name}/workspaces`),
        api.get(`/organizations/${org.name}/teams`),
        api.get(`/organizations/${org.name}/agent-pools`),
        api.get(`/agent-pools/${pool.id}`),
        api.post(`/agent-pools/${pool.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: {} } }),
        api.get(`/authentication-tokens/${agent.id}`),
        api.patch(`/workspaces/${mine.id}`, { data: { type: 'workspaces', attributes: { description: 'x' } } }),
        api.delete(`/workspaces/${mine.id}`),
        api.get(`/workspaces/${mine.id}/runs`),
        api.get(`/workspaces/${mine.id}/tasks`),
        api.get(`/team-workspaces?filter%5Bworkspace%5D%5Bid%5D=${mine.id}`),
        api.get('/account/details'),
        api.get(`/runs/${run.data.id}/run-events`),
        api.post(`/runs/${run.data.id}/comments`, { data: { type: 'comments', attributes: { body: 'x' } } }),
        api.post('/organizations', { data: { type: 'organizations', attributes: { name: 'agents-org', email: 'a@example.com' } } }),
      ];
      for (const response of await Promise.all(refused)) assertError(response, 401, /agent token/);
    });

    it('every route an agent token may use exists', () => {
      for (const route of AGENT_TOKEN_ROUTES) {
        const [method, url] = route.split(' ') as [string, string];
        assert.ok(ctx.app.hasRoute({ method: method as 'GET', url }), `${route} is no route`);
      }
    });
  });
}
