/**
 * Sentinel policies (issue 37 item 7): HCP's policy and policy set API shapes for `kind: sentinel`, and a missing
 * kind, which HCP defaults to Sentinel, are accepted and stored (the Sentinel text uploaded and downloadable), but
 * Teamstage has no Sentinel: at evaluation each such policy is `errored` ("Sentinel is not available; use OPA"),
 * and its level holds the stage as HCP's Sentinel levels mean (advisory warns, soft-mandatory awaits an override,
 * hard-mandatory fails). Also: filtered policy set outcomes leave out a set none of whose outcomes match.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const PLAN = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans/120_basic/plan.json'));
/** Sentinel, as go-tfe's tests upload it: not Rego (OPA would refuse it), stored as it is. */
const SENTINEL = 'main = rule { true }\n';
const ALLOW_ALL_V0 = 'package example rule["not allowed"] { false }';
const REASON = 'Sentinel is not available; use OPA';

async function raw(ctx: TestContext, token: string, method: 'PUT' | 'GET', url: string, body?: string | Buffer, contentType = 'application/octet-stream') {
  const response = await ctx.app.inject({
    method,
    url: `/api/v2${url}`,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { payload: body } : {}),
  });
  return { status: response.statusCode, text: response.body };
}

async function policy(ctx: TestContext, org: TestOrganization, attributes: Record<string, unknown>, text: string): Promise<string> {
  const created = await org.owner.api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const uploaded = await raw(ctx, org.owner.token, 'PUT', `/policies/${id}/upload`, text);
  assert.equal(uploaded.status, 204, uploaded.text);
  return id;
}

async function set(api: ApiClient, org: string, attributes: Record<string, unknown>, policyIds: string[], workspaceIds: string[]) {
  return api.post(`/organizations/${org}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes,
      relationships: {
        policies: { data: policyIds.map((id) => ({ id, type: 'policies' })) },
        workspaces: { data: workspaceIds.map((id) => ({ id, type: 'workspaces' })) },
      },
    },
  });
}

/** A run of a new agent workspace under one Sentinel policy of `level` (plus an OPA set that passes), planned. */
async function runUnderSentinel(ctx: TestContext, level: string) {
  const org = await createOrganization(ctx);
  const api = org.owner.api;
  const ws = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
  const sentinel = await policy(ctx, org, { name: `s-${level}`, enforce: [{ path: 's.sentinel', mode: level }] }, SENTINEL);
  assertStatus(await set(api, org.name, { name: 'sentinel-set' }, [sentinel], [ws.id]), 201);
  const opa = await policy(ctx, org, { name: 'allow-all', kind: 'opa', query: 'data.example.rule', 'enforcement-level': 'mandatory' }, ALLOW_ALL_V0);
  assertStatus(await set(api, org.name, { name: 'opa-set', kind: 'opa' }, [opa], [ws.id]), 201);

  const run = await createRun(api, ws.id);
  const runId = run.data.id as string;
  const planId = run.data.relationships.plan.data.id as string;
  await waitForRunStatus(api, runId, 'plan_queued');
  assertStatus(await api.post(`/plans/${planId}/actions/claim`), 200);
  assert.equal((await raw(ctx, org.owner.token, 'PUT', `/plans/${planId}/json-output`, PLAN, 'application/json')).status, 200);
  assertStatus(await api.request('POST', `/plans/${planId}/actions/report`, { status: 'finished' }, { 'content-type': 'application/json' }), 200);
  return { api, runId };
}

/** The run's post-plan stage once it has settled (bounded: fails loudly after 30 s) and its evaluation. */
async function settledEvaluationOf(api: ApiClient, runId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [stage] = (await api.get(`/runs/${runId}/task-stages`)).body.data;
    if (stage && !['pending', 'running'].includes(stage.attributes.status)) {
      const [evaluation] = (await api.get(`/task-stages/${stage.id}/policy-evaluations`)).body.data;
      return { stage, evaluation };
    }
    assert.ok(Date.now() < deadline, `the post-plan stage did not settle: ${JSON.stringify(stage?.attributes.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const dialect of testDialects()) {
  describe(`Sentinel policies (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      // A time limit far above any compile or evaluation here, even on a loaded machine: nothing in these tests is
      // about the limit (policy-fair-shares and the opa-engine unit test are), and a loaded CI machine took over 3 s
      // to compile the upload below.
      ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath(), TEAMSTAGE_POLICY_TIMEOUT: '30' });
    });
    after(async () => ctx.close());

    it('a policy without a kind is Sentinel (HCP default): stored, its text uploaded as it is and downloaded; Sentinel levels only', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const id = await policy(ctx, org, { name: 'legacy', description: 'from HCP', enforce: [{ path: 'legacy.sentinel', mode: 'soft-mandatory' }] }, SENTINEL);
      const shown = (await api.get(`/policies/${id}`)).body.data;
      assert.equal(shown.attributes.kind, 'sentinel');
      assert.equal(shown.attributes.query, null);
      assert.equal(shown.attributes['enforcement-level'], 'soft-mandatory');
      assert.deepEqual(shown.attributes.enforce, [{ path: 'legacy.sentinel', mode: 'soft-mandatory' }]);
      assert.equal(shown.links.download, `/api/v2/policies/${id}/download`);
      const downloaded = await raw(ctx, org.owner.token, 'GET', `/policies/${id}/download`);
      assert.equal(downloaded.status, 200);
      assert.equal(downloaded.text, SENTINEL);

      assert.deepEqual((await api.get(`/organizations/${org.name}/policies?filter[kind]=sentinel`)).body.data.map((p: any) => p.id), [id]);
      assert.deepEqual((await api.get(`/organizations/${org.name}/policies?filter[kind]=opa`)).body.data, []);
      // HCP keeps no query for a Sentinel policy: one sent is ignored.
      const withQuery = await api.patch(`/policies/${id}`, { data: { type: 'policies', attributes: { query: 'data.x' } } });
      assert.equal(withQuery.status, 200, withQuery.text);
      assert.equal(withQuery.body.data.attributes.query, null);
      const updated = await api.patch(`/policies/${id}`, { data: { type: 'policies', attributes: { 'enforcement-level': 'hard-mandatory' } } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.attributes['enforcement-level'], 'hard-mandatory');
      assertError(await api.patch(`/policies/${id}`, { data: { type: 'policies', attributes: { 'enforcement-level': 'mandatory' } } }), 422, /soft-mandatory/);
      assert.equal((await api.get(`/policies/${id}`)).body.data.attributes['enforcement-level'], 'hard-mandatory', 'a refused update changed nothing');
      const post = (attributes: Record<string, unknown>) => api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes } });
      assertError(await post({ name: 'no-level', kind: 'sentinel' }), 422, /required: advisory, soft-mandatory, hard-mandatory/);
      assertError(await post({ name: 'opa-level', kind: 'sentinel', 'enforcement-level': 'mandatory' }), 422, /Sentinel policy's enforcement level/);
      assertError(await post({ name: 'sentinel-level', kind: 'opa', query: 'data.x', 'enforcement-level': 'soft-mandatory' }), 422, /OPA policy's enforcement level/);
    });

    it('policy sets: a missing kind is Sentinel; a set takes only policies of its own kind (422, nothing changed)', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const sentinel = await policy(ctx, org, { name: 's', kind: 'sentinel', 'enforcement-level': 'advisory' }, SENTINEL);
      const opa = await policy(ctx, org, { name: 'o', kind: 'opa', query: 'data.example.rule', 'enforcement-level': 'advisory' }, ALLOW_ALL_V0);
      const created = await set(api, org.name, { name: 'default-kind' }, [sentinel], []);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.kind, 'sentinel');
      const setId = created.body.data.id as string;
      assertError(await api.post(`/policy-sets/${setId}/relationships/policies`, { data: [{ type: 'policies', id: opa }] }), 422, /of kind opa; a sentinel policy set takes only sentinel policies/);
      assert.deepEqual((await api.get(`/policy-sets/${setId}`)).body.data.relationships.policies.data, [{ id: sentinel, type: 'policies' }]);
      assertError(await set(api, org.name, { name: 'opa-set', kind: 'opa' }, [opa, sentinel], []), 422, /of kind sentinel/);
      assert.deepEqual((await api.get(`/organizations/${org.name}/policy-sets`)).body.data.map((s: any) => s.attributes.name), ['default-kind']);
      assert.deepEqual((await api.get(`/organizations/${org.name}/policy-sets?filter[kind]=opa`)).body.data, []);
      assertError(await set(api, org.name, { name: 'bad-kind', kind: 'rego' }, [], []), 422, /opa or sentinel/);
    });

    it('policy set parameters (type vars, category policy-set): kept, a sensitive value never served back; bad input 422, unknown 404', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const created = await set(api, org.name, { name: 'params' }, [], []);
      const base = `/policy-sets/${created.body.data.id}/parameters`;
      const post = (attributes: Record<string, unknown>) => api.post(base, { data: { type: 'vars', attributes } });
      const plain = await post({ key: 'region', value: 'eu', category: 'policy-set' });
      assert.equal(plain.status, 201, plain.text);
      assert.deepEqual(plain.body.data.attributes, { key: 'region', value: 'eu', category: 'policy-set', sensitive: false });
      assert.equal(plain.body.data.relationships.configurable.data.id, created.body.data.id);
      const secret = await post({ key: 'token', value: 'hunter2', category: 'policy-set', sensitive: true });
      assert.equal(secret.status, 201, secret.text);
      assert.equal(secret.body.data.attributes.value, null);
      const listed = (await api.get(base)).body;
      assert.deepEqual(listed.data.map((p: any) => [p.attributes.key, p.attributes.value]), [['region', 'eu'], ['token', null]]);
      assert.equal(listed.meta.pagination['total-count'], 2);
      assert.ok(!JSON.stringify(listed).includes('hunter2'));
      const patched = await api.patch(`${base}/${plain.body.data.id}`, { data: { type: 'vars', attributes: { value: 'us' } } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await api.get(`${base}/${plain.body.data.id}`)).body.data.attributes.value, 'us');
      assertError(await api.patch(`${base}/${secret.body.data.id}`, { data: { type: 'vars', attributes: { sensitive: false } } }), 422, /cannot be made non-sensitive/);
      assertError(await post({ key: 'region', value: 'x', category: 'policy-set' }), 422, /already been taken/);
      assertError(await post({ key: 'k', value: 'x', category: 'terraform' }), 422, /policy-set/);
      assertError(await post({ value: 'x', category: 'policy-set' }), 422, /key/);
      assertError(await api.get(`${base}/var-missing00000000000`), 404);
      assertError(await api.get(`/policy-sets/polset-missing0000000/parameters`), 404);
      const other = await createOrganization(ctx);
      assertError(await other.owner.api.get(base), 404);
      assertStatus(await api.delete(`${base}/${plain.body.data.id}`), 204);
      assert.deepEqual((await api.get(base)).body.data.map((p: any) => p.attributes.key), ['token']);
    });

    it('advisory: the Sentinel policy is errored with its reason and only warns; the run goes on', async () => {
      const { api, runId } = await runUnderSentinel(ctx, 'advisory');
      const { stage, evaluation } = await settledEvaluationOf(api, runId);
      assert.equal(stage.attributes.status, 'passed');
      assert.equal(evaluation.attributes.status, 'passed');
      assert.deepEqual(evaluation.attributes['result-count'], { 'advisory-failed': 0, 'mandatory-failed': 0, passed: 1, errored: 1 });
      const outcomes = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body.data;
      const sentinel = outcomes.find((o: any) => o.attributes['policy-set-name'] === 'sentinel-set').attributes.outcomes[0];
      assert.deepEqual({ status: sentinel.status, level: sentinel.enforcement_level, output: sentinel.output }, { status: 'errored', level: 'advisory', output: [{ print: REASON }] });
    });

    it('soft-mandatory: errored, the stage awaits an override (HCP lets a person override it); filters list only the sets that match', async () => {
      const { api, runId } = await runUnderSentinel(ctx, 'soft-mandatory');
      await waitForRunStatus(api, runId, 'post_plan_awaiting_decision', 30_000);
      const { stage, evaluation } = await settledEvaluationOf(api, runId);
      assert.equal(stage.attributes.status, 'awaiting_override');
      assert.equal(evaluation.attributes.status, 'errored');
      const all = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body;
      assert.equal(all.data.length, 2);
      // Only the Sentinel set has an errored outcome: the OPA set, all of whose outcomes miss the filter, is not listed.
      const errored = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes?filter[0][status]=errored`)).body;
      assert.deepEqual(errored.data.map((o: any) => o.attributes['policy-set-name']), ['sentinel-set']);
      assert.equal(errored.meta.pagination['total-count'], 1);
      const passed = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes?filter[0][status]=passed&filter[0][enforcement_level]=mandatory`)).body;
      assert.deepEqual(passed.data.map((o: any) => o.attributes['policy-set-name']), ['opa-set']);
      const none = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes?filter[0][status]=failed`)).body;
      assert.deepEqual(none.data, []);

      const overridden = await api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'reviewed by hand' });
      assert.equal(overridden.status, 200, overridden.text);
      await waitForRunStatus(api, runId, ['post_plan_completed', 'planned'], 15_000);
    });

    it('hard-mandatory: errored, the stage fails closed (nobody may override) and the run errors', async () => {
      const { api, runId } = await runUnderSentinel(ctx, 'hard-mandatory');
      await waitForRunStatus(api, runId, 'errored', 30_000);
      const { stage, evaluation } = await settledEvaluationOf(api, runId);
      assert.equal(stage.attributes.status, 'failed');
      assert.equal(evaluation.attributes.status, 'errored');
      assertError(await api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'let it through' }), 409);
    });
  });
}
