/**
 * Issue 29's acceptance, in-process: `teamstage pipeline` runs a real plan whose JSON breaks a mandatory
 * policy and passes an advisory one (the real OPA judges it); the post-plan stage awaits an override and the
 * pipeline prints the policy outcomes like task results; `can-override-policy` decides who may release it;
 * the override moves the run on. On both databases.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { assertError } from '../helpers/assertions.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createWorkspace, memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const DENY_CREATES = `package teamstage.no_creates
import rego.v1
deny contains msg if {
  some change in input.plan.resource_changes
  "create" in change.change.actions
  msg := sprintf("%s would be created", [change.address])
}
`;

for (const dialect of testDialects()) {
  describe(`pipeline gated by policies (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let pipelineToken: string;
    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath() });
      org = await createOrganization(ctx);
      const ci = await createTeam(ctx, org, { 'organization-access': { 'manage-workspaces': true } });
      const token = await org.owner.api.post(`/teams/${ci.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'pipeline' } } });
      assert.equal(token.status, 201, token.text);
      pipelineToken = token.body.data.attributes.token;
    });
    after(async () => ctx.close());

    async function cli(...args: string[]) {
      const stdout: string[] = [];
      const stderr: string[] = [];
      const out: Output = { info: (line) => stderr.push(line), result: (line) => stdout.push(line) };
      const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: pipelineToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
      const code = await runPipeline([...args, '--poll-interval', '0.05', '--timeout', '60'], env, out);
      return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
    }

    async function policy(name: string, level: string, query: string, rego: string): Promise<string> {
      const created = await org.owner.api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes: { name, kind: 'opa', query, 'enforcement-level': level } } });
      assert.equal(created.status, 201, created.text);
      const uploaded = await ctx.app.inject({
        method: 'PUT', url: `/api/v2/policies/${created.body.data.id}/upload`, payload: rego,
        headers: { authorization: `Bearer ${org.owner.token}`, 'content-type': 'application/octet-stream' },
      });
      assert.equal(uploaded.statusCode, 204, uploaded.body);
      return created.body.data.id;
    }

    it('mandatory failure + advisory pass: the stage awaits an override, the pipeline prints the outcomes, can-override-policy releases it', async () => {
      const workspace = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      const mandatory = await policy('no-creates', 'mandatory', 'data.teamstage.no_creates.deny', DENY_CREATES);
      const advisory = await policy('required-tags', 'advisory', 'data.terraform.policies.required_tags.deny', fs.readFileSync(path.join(ROOT, 'examples/policies/required_tags.rego'), 'utf8'));
      const set = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
        data: {
          type: 'policy-sets',
          attributes: { name: 'gate', kind: 'opa', overridable: true },
          relationships: {
            policies: { data: [{ id: mandatory, type: 'policies' }, { id: advisory, type: 'policies' }] },
            workspaces: { data: [{ id: workspace.id, type: 'workspaces' }] },
          },
        },
      });
      assert.equal(set.status, 201, set.text);

      const started = await cli('plan-start', '--organization', org.name, '--workspace', workspace.name, '--config-dir', path.join(FIXTURES, '120_basic'));
      assert.equal(started.code, 0, started.stderr);
      const runId = started.stdout;
      const finished = await cli('plan-finish', '--run', runId, '--plan-json', path.join(FIXTURES, '120_basic/plan.json'));
      assert.equal(finished.code, 3, finished.stderr);
      assert.equal(finished.stdout, 'post_plan_awaiting_decision');
      assert.match(finished.stderr, /post_plan stage: awaiting_override/);
      assert.match(finished.stderr, /policies: failed \(1 passed, 0 advisory failed, 1 mandatory failed, 0 errored\)/);
      assert.match(finished.stderr, /policy set gate \(overridable\)/);
      assert.match(finished.stderr, /no-creates \(mandatory\): failed/);
      assert.match(finished.stderr, /- null_resource\.bar would be created/);
      assert.match(finished.stderr, /required-tags \(advisory\): passed/);

      const [stage] = (await org.owner.api.get(`/runs/${runId}/task-stages`)).body.data;
      assert.equal(stage.attributes.status, 'awaiting_override');
      const tasksOnly = await memberWithAccess(ctx, org, { 'manage-run-tasks': true, 'read-workspaces': true });
      assertError(await tasksOnly.api.post(`/task-stages/${stage.id}/actions/override`), 403, /not allowed to override/);
      const overrider = await memberWithAccess(ctx, org, { 'manage-policy-overrides': true, 'read-workspaces': true });
      const overridden = await overrider.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'known and accepted' });
      assert.equal(overridden.status, 200, overridden.text);
      await waitForRunStatus(org.owner.api, runId, 'post_plan_completed', 15_000);
      const waited = await cli('wait', '--run', runId);
      assert.equal(waited.stdout.trim(), 'post_plan_completed', waited.stderr);
      assert.match(waited.stderr, /^post_plan stage: passed$/m);
      const [evaluation] = (await org.owner.api.get(`/task-stages/${stage.id}/policy-evaluations`)).body.data;
      assert.equal(evaluation.attributes.status, 'overridden');
      // The run's record has the evaluation and the override.
      const events = (await org.owner.api.get(`/runs/${runId}/run-events?page%5Bsize%5D=100`)).body.data as any[];
      const evaluated = events.find((event) => event.attributes.action === 'policy_evaluation_failed');
      assert.ok(evaluated, JSON.stringify(events.map((event) => event.attributes.action)));
      assert.match(evaluated.attributes.description, /1 passed, 0 advisory failed, 1 mandatory failed, 0 errored/);
    });
  });
}
