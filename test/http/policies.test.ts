/**
 * Policies as code (issue 29): HCP's OPA policy API (policies, upload/download, policy sets and their
 * relationships) and the evaluation of a run's plan JSON in its post-plan stage by the real OPA, with
 * overrides decided by `can-override-policy`; on both databases.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ApiClient } from '../helpers/api-client.js';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createRun, createRunnableWorkspace, memberWithAccess, subscribe, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const fixturePlan = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name, 'plan.json'));

/** Rego v1: every resource the plan creates is a violation (120_basic creates seven). */
const DENY_CREATES = `package teamstage.no_creates
import rego.v1
deny contains msg if {
  some change in input.plan.resource_changes
  "create" in change.change.actions
  msg := sprintf("%s would be created", [change.address])
}
`;
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';
/** Rego v0 (go-tfe's test policies are written so): passes on any plan. */
const ALLOW_ALL_V0 = 'package example rule["not allowed"] { false }';

async function raw(ctx: TestContext, token: string, method: 'PUT' | 'GET', url: string, body?: string | Buffer, contentType = 'application/octet-stream') {
  const response = await ctx.app.inject({
    method,
    url: `/api/v2${url}`,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { payload: body } : {}),
  });
  let parsed: any;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers as Record<string, string>, body: parsed, text: response.body };
}

async function createPolicy(api: ApiClient, org: string, name: string, level: EnforcementLevel, query: string, useEnforce = false) {
  const attributes = useEnforce
    ? { name, kind: 'opa', query, enforce: [{ path: `${name}.rego`, mode: level }] }
    : { name, kind: 'opa', query, 'enforcement-level': level };
  const created = await api.post(`/organizations/${org}/policies`, { data: { type: 'policies', attributes } });
  assert.equal(created.status, 201, created.text);
  return created.body.data.id as string;
}

async function createSet(api: ApiClient, org: string, name: string, policyIds: string[], workspaceIds: string[], attributes: Record<string, unknown> = {}) {
  const created = await api.post(`/organizations/${org}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name, kind: 'opa', ...attributes },
      relationships: {
        policies: { data: policyIds.map((id) => ({ id, type: 'policies' })) },
        workspaces: { data: workspaceIds.map((id) => ({ id, type: 'workspaces' })) },
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.data;
}

/** An agent-mode run whose pipeline uploads `plan` and reports the plan finished. */
async function plannedAgentRun(ctx: TestContext, org: TestOrganization, workspaceId: string, plan: Buffer) {
  const api = org.owner.api;
  const run = await createRun(api, workspaceId);
  const runId = run.data.id as string;
  const planId = run.data.relationships.plan.data.id as string;
  await waitForRunStatus(api, runId, 'plan_queued');
  assertStatus(await api.post(`/plans/${planId}/actions/claim`), 200);
  assert.equal((await raw(ctx, org.owner.token, 'PUT', `/plans/${planId}/json-output`, plan, 'application/json')).status, 200);
  const reported = await api.request('POST', `/plans/${planId}/actions/report`, { status: 'finished' }, { 'content-type': 'application/json' });
  assertStatus(reported, 200);
  return runId;
}

for (const dialect of testDialects()) {
  describe(`policies (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      // A time limit far above any compile or evaluation here, even on a loaded machine: nothing in these tests is
      // about the limit (policy-fair-shares and the opa-engine unit test are), and a loaded CI machine took over 3 s
      // to compile the upload below.
      ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath(), TEAMSTAGE_POLICY_TIMEOUT: '30' });
    });
    after(async () => ctx.close());

    it('policies: create (enforce or enforcement-level), upload compiled by OPA, download, update, delete; bad input is 422', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const id = await createPolicy(api, org.name, 'no-creates', 'mandatory', 'data.teamstage.no_creates.deny', true);
      const shown = await api.get(`/policies/${id}`);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.data.attributes.kind, 'opa');
      assert.equal(shown.body.data.attributes['enforcement-level'], 'mandatory');
      assert.deepEqual(shown.body.data.attributes.enforce, [], 'HCP lists no enforced file before the upload');
      assert.equal((await raw(ctx, org.owner.token, 'GET', `/policies/${id}/download`)).status, 404, 'nothing to download before an upload');

      const broken = await raw(ctx, org.owner.token, 'PUT', `/policies/${id}/upload`, 'package x\nthis is not rego {');
      assert.equal(broken.status, 422, broken.text);
      assert.match(broken.body.errors[0].detail, /does not compile: .*(rego_parse_error|unexpected|parse)/i);
      const uploaded = await raw(ctx, org.owner.token, 'PUT', `/policies/${id}/upload`, DENY_CREATES);
      assert.equal(uploaded.status, 204, uploaded.text);
      const downloaded = await raw(ctx, org.owner.token, 'GET', `/policies/${id}/download`);
      assert.equal(downloaded.status, 200);
      assert.equal(downloaded.text, DENY_CREATES);
      assert.deepEqual((await api.get(`/policies/${id}`)).body.data.attributes.enforce, [{ path: 'no-creates.rego', mode: 'mandatory' }]);
      assert.deepEqual((await api.get(`/organizations/${org.name}/policies?filter[kind]=sentinel`)).body.data, [], 'filter[kind]');
      // Rego v0, as go-tfe's own tests upload it.
      const v0 = await createPolicy(api, org.name, 'allow-all', 'advisory', 'data.example.rule');
      assert.equal((await raw(ctx, org.owner.token, 'PUT', `/policies/${v0}/upload`, ALLOW_ALL_V0)).status, 204);

      const updated = await api.patch(`/policies/${id}`, { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory', description: 'd' } } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.attributes['enforcement-level'], 'advisory');
      const listed = await api.get(`/organizations/${org.name}/policies`);
      assert.deepEqual(listed.body.data.map((p: any) => p.attributes.name), ['allow-all', 'no-creates']);

      const post = (attributes: Record<string, unknown>) => api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes } });
      // No kind is Sentinel (HCP's default), whose levels are not OPA's (sentinel-policies.test.ts has the rest).
      assertError(await post({ name: 'sentinel-one', enforce: [{ path: 'x.sentinel', mode: 'mandatory' }] }), 422, /Sentinel policy's enforcement level is advisory or soft-mandatory or hard-mandatory/);
      assertError(await post({ name: 'other-kind', kind: 'rego', query: 'data.x', 'enforcement-level': 'mandatory' }), 422, /opa or sentinel/);
      assertError(await post({ name: 'no-query', kind: 'opa', 'enforcement-level': 'mandatory' }), 422, /query/);
      assertError(await post({ name: 'bad-level', kind: 'opa', query: 'data.x', 'enforcement-level': 'hard-mandatory' }), 422, /advisory or mandatory/);
      assertError(await post({ name: 'no-creates', kind: 'opa', query: 'data.x', 'enforcement-level': 'mandatory' }), 422, /already been taken/);
      assertError(await post({ name: 'bad name!', kind: 'opa', query: 'data.x', 'enforcement-level': 'mandatory' }), 422, /letters/);
      assertError(await api.patch('/policies/pol-doesnotexist00000', { nonsense: true }), 404);

      assert.equal((await api.delete(`/policies/${v0}`)).status, 204);
      assertError(await api.get(`/policies/${v0}`), 404);
    });

    it('access: members read, manage-policies writes (403 without), outsiders get 404; an edition without policies refuses writes', async () => {
      const org = await createOrganization(ctx);
      const id = await createPolicy(org.owner.api, org.name, 'p', 'advisory', 'data.example.rule');
      const member = await addMember(ctx, org);
      assert.equal((await member.api.get(`/policies/${id}`)).status, 200);
      assertError(
        await member.api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes: { name: 'q', kind: 'opa', query: 'data.x', 'enforcement-level': 'advisory' } } }),
        403,
        /manage-policies/,
      );
      assertError(await raw(ctx, member.token, 'PUT', `/policies/${id}/upload`, ALLOW_ALL_V0), 403);
      const writer = await memberWithAccess(ctx, org, { 'manage-policies': true });
      assert.equal((await raw(ctx, writer.token, 'PUT', `/policies/${id}/upload`, ALLOW_ALL_V0)).status, 204);

      const other = await createOrganization(ctx);
      assertError(await other.owner.api.get(`/policies/${id}`), 404);
      assertError(await raw(ctx, other.owner.token, 'PUT', `/policies/${id}/upload`, ALLOW_ALL_V0), 404);

      await subscribe(ctx, org, 'fs-free');
      assertError(await raw(ctx, org.owner.token, 'PUT', `/policies/${id}/upload`, ALLOW_ALL_V0), 403, /edition does not include policies/);
    });

    it('policy sets: relationships added and removed; unknown policies or workspaces are 422', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const a = await createPolicy(api, org.name, 'a', 'advisory', 'data.example.rule');
      const b = await createPolicy(api, org.name, 'b', 'mandatory', 'data.example.rule');
      const ws = await createRunnableWorkspace(ctx, api, org.name);
      const set = await createSet(api, org.name, 'set-one', [a], [ws.id], { overridable: true });
      assert.equal(set.attributes.overridable, true);
      assert.equal(set.attributes['policy-count'], 1);
      assert.deepEqual(set.relationships.workspaces.data, [{ id: ws.id, type: 'workspaces' }]);

      assertStatus(await api.post(`/policy-sets/${set.id}/relationships/policies`, { data: [{ type: 'policies', id: b }] }), 204);
      assertStatus(await api.post(`/policy-sets/${set.id}/relationships/workspace-exclusions`, { data: [{ type: 'workspaces', id: ws.id }] }), 204);
      let shown = (await api.get(`/policy-sets/${set.id}`)).body.data;
      assert.deepEqual(shown.relationships.policies.data.map((p: any) => p.id).sort(), [a, b].sort());
      assert.deepEqual(shown.relationships['workspace-exclusions'].data, [{ id: ws.id, type: 'workspaces' }]);
      assertStatus(await api.request('DELETE', `/policy-sets/${set.id}/relationships/policies`, { data: [{ type: 'policies', id: a }] }), 204);
      shown = (await api.get(`/policy-sets/${set.id}`)).body.data;
      assert.deepEqual(shown.relationships.policies.data.map((p: any) => p.id), [b]);
      assert.equal((await api.get(`/policies/${b}`)).body.data.attributes['policy-set-count'], 1);

      assertError(await api.post(`/policy-sets/${set.id}/relationships/policies`, { data: [{ type: 'policies', id: 'pol-missing000000000' }] }), 422, /not found/);
      const other = await createOrganization(ctx);
      const foreign = await createRunnableWorkspace(ctx, other.owner.api, other.name);
      assertError(await api.post(`/policy-sets/${set.id}/relationships/workspaces`, { data: [{ type: 'workspaces', id: foreign.id }] }), 422, /not found/);
      assertError(await api.post(`/policy-sets/pol-nothere0000000000/relationships/policies`, { nonsense: 1 }), 404);

      const patched = await api.patch(`/policy-sets/${set.id}`, { data: { type: 'policy-sets', attributes: { global: true, name: 'set-renamed' } } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.attributes.global, true);
      assert.deepEqual((await api.get(`/organizations/${org.name}/policy-sets`)).body.data.map((s: any) => s.attributes.name), ['set-renamed']);
      assertStatus(await api.delete(`/policy-sets/${set.id}`), 204);
      assertError(await api.get(`/policy-sets/${set.id}`), 404);
    });

    it('evaluation: a mandatory failure in an overridable set holds the post-plan stage; can-override-policy decides who releases it', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const mandatory = await createPolicy(api, org.name, 'no-creates', 'mandatory', 'data.teamstage.no_creates.deny');
      assert.equal((await raw(ctx, org.owner.token, 'PUT', `/policies/${mandatory}/upload`, DENY_CREATES)).status, 204);
      const advisory = await createPolicy(api, org.name, 'allow-all', 'advisory', 'data.example.rule');
      assert.equal((await raw(ctx, org.owner.token, 'PUT', `/policies/${advisory}/upload`, ALLOW_ALL_V0)).status, 204);
      // No run task: the policy set alone gives the run its post-plan stage.
      const ws = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      await createSet(api, org.name, 'gate', [mandatory, advisory], [ws.id], { overridable: true });

      const runId = await plannedAgentRun(ctx, org, ws.id, fixturePlan('120_basic'));
      await waitForRunStatus(api, runId, 'post_plan_awaiting_decision', 30_000);
      const stages = (await api.get(`/runs/${runId}/task-stages`)).body.data;
      assert.equal(stages.length, 1);
      const stage = stages[0];
      assert.equal(stage.attributes.stage, 'post_plan');
      assert.equal(stage.attributes.status, 'awaiting_override');
      assert.equal(stage.relationships['policy-evaluations'].data.length, 1);

      const evaluations = (await api.get(`/task-stages/${stage.id}/policy-evaluations`)).body.data;
      assert.equal(evaluations.length, 1);
      const evaluation = evaluations[0];
      assert.equal(evaluation.attributes.status, 'failed');
      assert.equal(evaluation.attributes['policy-kind'], 'opa');
      assert.deepEqual(evaluation.attributes['result-count'], { 'advisory-failed': 0, 'mandatory-failed': 1, passed: 1, errored: 0 });
      // Operators see evaluations in /metrics (issue 31).
      const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /^teamstage_policy_evaluations\{status="failed"\} [1-9]/m);
      const included = (await api.get(`/task-stages/${stage.id}?include=policy_evaluations`)).body.included;
      assert.deepEqual(included.map((r: any) => r.id), [evaluation.id]);

      const outcomes = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body.data;
      assert.equal(outcomes.length, 1);
      assert.equal(outcomes[0].attributes['policy-set-name'], 'gate');
      assert.equal(outcomes[0].attributes.overridable, true);
      const failed = outcomes[0].attributes.outcomes.find((o: any) => o.policy_name === 'no-creates');
      assert.equal(failed.status, 'failed');
      assert.equal(failed.enforcement_level, 'mandatory');
      assert.ok(failed.output.some((o: any) => o.print === 'null_resource.bar would be created'), JSON.stringify(failed.output));
      const filtered = (await api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes?filter[0][status]=passed&filter[0][enforcement_level]=advisory`)).body.data;
      assert.deepEqual(filtered[0].attributes.outcomes.map((o: any) => o.policy_name), ['allow-all']);
      assert.equal((await api.get(`/policy-set-outcomes/${outcomes[0].id}`)).body.data.id, outcomes[0].id);

      // The tasks right is not the policy right: 403; a holder of manage-policy-overrides releases the stage.
      const tasksOnly = await memberWithAccess(ctx, org, { 'manage-run-tasks': true, 'read-workspaces': true });
      const asTasks = (await tasksOnly.api.get(`/task-stages/${stage.id}`)).body.data.attributes.permissions;
      assert.deepEqual(asTasks, { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': false });
      assertError(await tasksOnly.api.post(`/task-stages/${stage.id}/actions/override`), 403);
      const policyOverrider = await memberWithAccess(ctx, org, { 'manage-policy-overrides': true, 'read-workspaces': true });
      assert.equal((await policyOverrider.api.get(`/task-stages/${stage.id}`)).body.data.attributes.permissions['can-override'], true);
      const overridden = await policyOverrider.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'accepted risk' });
      assert.equal(overridden.status, 200, overridden.text);
      await waitForRunStatus(api, runId, ['post_plan_completed', 'planned'], 15_000);
      assert.equal((await api.get(`/task-stages/${stage.id}`)).body.data.attributes.status, 'passed');
      assert.equal((await api.get(`/task-stages/${stage.id}/policy-evaluations`)).body.data[0].attributes.status, 'overridden');

      // Outsiders see none of it.
      const other = await createOrganization(ctx);
      assertError(await other.owner.api.get(`/task-stages/${stage.id}/policy-evaluations`), 404);
      assertError(await other.owner.api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`), 404);
      assertError(await other.owner.api.get(`/policy-set-outcomes/${outcomes[0].id}`), 404);
    });

    it('evaluation: a set that is not overridable fails the stage and errors the run; a crafted policy is errored with its reason', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const mandatory = await createPolicy(api, org.name, 'no-creates', 'mandatory', 'data.teamstage.no_creates.deny');
      assert.equal((await raw(ctx, org.owner.token, 'PUT', `/policies/${mandatory}/upload`, DENY_CREATES)).status, 204);
      const ws = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      await createSet(api, org.name, 'hard', [mandatory], [ws.id], { overridable: false });
      const runId = await plannedAgentRun(ctx, org, ws.id, fixturePlan('120_basic'));
      await waitForRunStatus(api, runId, 'errored', 30_000);
      const [stage] = (await api.get(`/runs/${runId}/task-stages`)).body.data;
      assert.equal(stage.attributes.status, 'failed');

      // A policy whose answer is huge: stopped, errored with the reason, the stage errored.
      const org2 = await createOrganization(ctx);
      const huge = await createPolicy(org2.owner.api, org2.name, 'huge', 'mandatory', 'data.huge.deny');
      const hugeRego = 'package huge\nimport rego.v1\ndeny := [x | some x in numbers.range(1, 3000000)]\n';
      assert.equal((await raw(ctx, org2.owner.token, 'PUT', `/policies/${huge}/upload`, hugeRego)).status, 204);
      const ws2 = await createRunnableWorkspace(ctx, org2.owner.api, org2.name, { 'execution-mode': 'agent' });
      await createSet(org2.owner.api, org2.name, 'crafted', [huge], [ws2.id], { overridable: true });
      const run2 = await plannedAgentRun(ctx, org2, ws2.id, fixturePlan('no_changes'));
      await waitForRunStatus(org2.owner.api, run2, 'errored', 60_000);
      const [stage2] = (await org2.owner.api.get(`/runs/${run2}/task-stages`)).body.data;
      assert.equal(stage2.attributes.status, 'errored');
      const [evaluation] = (await org2.owner.api.get(`/task-stages/${stage2.id}/policy-evaluations`)).body.data;
      assert.equal(evaluation.attributes.status, 'errored');
      const [outcome] = (await org2.owner.api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body.data;
      assert.equal(outcome.attributes.outcomes[0].status, 'errored');
      assert.match(outcome.attributes.outcomes[0].output[0].print, /more than \d+ bytes|longer than|MiB|timed out/);
    });
  });

  describe(`policies without an engine (${dialect})`, { timeout: 60_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestApp(dialect, { TEAMSTAGE_OPA_PATH: '/nonexistent/opa' });
    });
    after(async () => ctx.close());

    it('says so and refuses policy writes with a clear 422; reads still work', async () => {
      assert.equal(ctx.services.policyEngine.available, false);
      assert.match(ctx.services.policyEngine.description, /TEAMSTAGE_OPA_PATH=\/nonexistent\/opa/);
      const org = await createOrganization(ctx);
      const created = await org.owner.api.post(`/organizations/${org.name}/policies`, {
        data: { type: 'policies', attributes: { name: 'p', kind: 'opa', query: 'data.x', 'enforcement-level': 'advisory' } },
      });
      assertError(created, 422, /no policy engine \(OPA\)/);
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/policies`)).status, 200);
    });
  });
}
