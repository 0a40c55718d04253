/**
 * Runs judged by policies over real HTTP, for the system tests and the bench rows of issue 29: an organization's
 * global OPA policy set, and runs whose plan JSON is uploaded and waits to be reported (the moment the post-plan
 * stage, and with it the policy evaluation, starts).
 */
import assert from 'node:assert/strict';
import type { HttpClient } from './http-client.js';
import { tarGz } from './run-fixtures.js';
import { waitUntil } from './wait-until.js';
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';

/** One call that must answer `status`; its JSON body. */
export type Call = (token: string, method: string, url: string, body: unknown, status: number) => Promise<any>;

export function strictCall(http: HttpClient): Call {
  return async (token, method, url, body, status) => {
    const response = await http.request(method, url, token, body);
    assert.equal(response.status, status, `${method} ${url}: ${response.text}`);
    return response.body;
  };
}

/** Uploads each policy's Rego and puts them all in one global set (it judges every run of the organization). */
export async function globalPolicySet(
  call: Call,
  owner: { ownerToken: string; organization: string },
  policies: Array<{ name: string; query: string; rego: string; level: EnforcementLevel }>,
): Promise<void> {
  const policyIds: string[] = [];
  for (const policy of policies) {
    const created = await call(owner.ownerToken, 'POST', `/organizations/${owner.organization}/policies`, {
      data: { type: 'policies', attributes: { name: policy.name, kind: 'opa', query: policy.query, 'enforcement-level': policy.level } },
    }, 201);
    await call(owner.ownerToken, 'PUT', `/policies/${created.data.id}/upload`, policy.rego, 204);
    policyIds.push(created.data.id);
  }
  await call(owner.ownerToken, 'POST', `/organizations/${owner.organization}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: `set-${policyIds.length}`, kind: 'opa', overridable: true, global: true },
      relationships: { policies: { data: policyIds.map((id) => ({ id, type: 'policies' })) } },
    },
  }, 201);
}

/**
 * A run on a workspace of its own (agent mode), its plan claimed and its JSON output uploaded: reporting the
 * plan finished (`reportPlan`) starts its post-plan stage.
 */
export async function plannedRun(
  call: Call,
  url: string,
  owner: { ownerToken: string; organization: string },
  workspaceName: string,
  planJson: string,
): Promise<{ runId: string; planId: string }> {
  const workspace = await call(owner.ownerToken, 'POST', `/organizations/${owner.organization}/workspaces`, {
    data: { type: 'workspaces', attributes: { name: workspaceName, 'execution-mode': 'agent' } },
  }, 201);
  const version = await call(owner.ownerToken, 'POST', `/workspaces/${workspace.data.id}/configuration-versions`, {
    data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
  }, 201);
  const uploaded = await fetch(`${url}${new URL(version.data.attributes['upload-url']).pathname}`, {
    method: 'PUT', body: new Uint8Array(tarGz()), headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(uploaded.status, 200);
  const run = await call(owner.ownerToken, 'POST', '/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } } }, 201);
  const runId = run.data.id as string;
  const planId = run.data.relationships.plan.data.id as string;
  await waitUntil(async () => (await call(owner.ownerToken, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status === 'plan_queued', 30_000, `run ${runId} was not queued`);
  await call(owner.ownerToken, 'POST', `/plans/${planId}/actions/claim`, undefined, 200);
  await call(owner.ownerToken, 'PUT', `/plans/${planId}/json-output`, planJson, 200);
  return { runId, planId };
}

export const reportPlan = (call: Call, token: string, planId: string) => call(token, 'POST', `/plans/${planId}/actions/report`, { status: 'finished' }, 200);

/**
 * Run statuses once the post-plan stage has judged the run. Not `planned`: a run with a post-plan stage passes
 * through it before the stage starts (awaitsConfirmation holds it there), with its evaluation still pending.
 */
export const JUDGED_RUN_STATUSES = ['post_plan_awaiting_decision', 'errored', 'post_plan_completed'];

/** The run's post-plan policy evaluation resource and its set outcomes. */
export async function policyEvaluationOf(call: Call, token: string, runId: string): Promise<{ evaluation: any; sets: any[] }> {
  const [stage] = (await call(token, 'GET', `/runs/${runId}/task-stages`, undefined, 200)).data;
  const [evaluation] = (await call(token, 'GET', `/task-stages/${stage.id}/policy-evaluations`, undefined, 200)).data;
  const sets = (await call(token, 'GET', `/policy-evaluations/${evaluation.id}/policy-set-outcomes`, undefined, 200)).data;
  return { evaluation, sets };
}
