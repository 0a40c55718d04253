/**
 * Issue 16's acceptance, end to end on both databases: a pipeline drives agent-mode runs with the
 * `teamstage pipeline` commands (run in-process here; test/process/pipeline-cli.test.ts runs the real
 * process), handing over real `terraform show -json` plans (test/fixtures/terraform-plans), while the
 * example run task service (examples/run-task-service) judges them on loopback as a mandatory post-plan
 * task: a replace fails the stage until an override, no changes end planned_and_finished, a safe plan
 * passes and applies, a denied resource type fails with one outcome per address.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { attachRunTask, createRunTask, createWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { HMAC_KEY, startListeningApp, stagesOf } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const planFile = (name: string) => path.join(FIXTURES, name, 'plan.json');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

for (const dialect of testDialects()) {
  describe(`gate a pipeline: teamstage pipeline + the example run task service + real plans (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    let service: Server;
    let serviceUrl: string;
    let org: TestOrganization;
    let taskId: string;
    let workDir: string;
    let pipelineToken: string;

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '30' });
      // @ts-expect-error: a plain JavaScript example without type declarations
      const { createServer } = await import('../../examples/run-task-service/server.mjs');
      service = createServer({ hmacKey: HMAC_KEY, denyResourceTypes: ['local_file'], allowDestroy: false, failWorkspacePattern: '', verdictDelayMs: 0, quiet: true });
      await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
      serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/`;
      org = await createOrganization(ctx);
      // The pipeline's token, as the README makes it: a team token of a team with manage-workspaces, made by a person.
      const ci = await createTeam(ctx, org, { 'organization-access': { 'manage-workspaces': true } });
      const token = await org.owner.api.post(`/teams/${ci.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'pipeline' } } });
      assert.equal(token.status, 201, token.text);
      pipelineToken = token.body.data.attributes.token;
      taskId = (await createRunTask(org.owner.api, org.name, serviceUrl, { 'hmac-key': HMAC_KEY, name: 'plan-guard' })).id;
      workDir = fs.mkdtempSync(path.join(ctx.config.dataDir, 'pipeline-'));
      fs.writeFileSync(path.join(workDir, 'plan.log'), 'Terraform will perform the following actions:\n  # null_resource.example will be replaced\n');
      fs.writeFileSync(path.join(workDir, 'apply.log'), 'Apply complete! Resources: 1 added, 0 changed, 1 destroyed.\n');
    });
    after(async () => {
      service.closeAllConnections();
      await new Promise((resolve) => service.close(resolve));
      await ctx.close();
    });

    /** The CLI, in-process, with the pipeline's team token. */
    async function cli(...args: string[]): Promise<CliResult> {
      const stdout: string[] = [];
      const stderr: string[] = [];
      const out: Output = { info: (line) => stderr.push(line), result: (line) => stdout.push(line) };
      const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: pipelineToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
      const code = await runPipeline([...args, '--poll-interval', '0.05', '--timeout', '60'], env, out);
      return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
    }

    /** An agent-mode workspace with the example service attached as a mandatory post-plan task. */
    async function gatedAgentWorkspace(): Promise<string> {
      const workspace = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      await attachRunTask(org.owner.api, workspace.id, taskId, { 'enforcement-level': 'mandatory', stages: ['post_plan'] });
      return workspace.name;
    }

    async function planStart(workspace: string, configFixture: string): Promise<string> {
      const started = await cli('plan-start', '--organization', org.name, '--workspace', workspace, '--config-dir', path.join(FIXTURES, configFixture));
      assert.equal(started.code, 0, started.stderr);
      assert.match(started.stdout, /^run-\w+$/);
      assert.match(started.stderr, /claimed/);
      return started.stdout;
    }

    async function outcomesOfPostPlan(runId: string) {
      const stage = (await stagesOf(org.owner.api, runId)).find((candidate) => candidate.attributes.stage === 'post_plan');
      const resultId = stage.relationships['task-results'].data[0].id;
      const result = (await org.owner.api.get(`/task-results/${resultId}`)).body.data;
      const outcomes = (await org.owner.api.get(`/task-results/${resultId}/outcomes`)).body.data;
      return { stage, result, outcomes };
    }

    it('a plan that replaces a resource fails the mandatory post-plan stage (exit 3); an override lets it continue; the apply report ends it applied', async () => {
      const workspace = await gatedAgentWorkspace();
      const runId = await planStart(workspace, '120_basic');
      assert.equal((await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status, 'planning');

      const finished = await cli('plan-finish', '--run', runId, '--plan-json', planFile('action_reason'), '--log', path.join(workDir, 'plan.log'));
      assert.equal(finished.code, 3, finished.stderr);
      assert.equal(finished.stdout, 'post_plan_awaiting_decision');
      assert.match(finished.stderr, /plan: 1 to add, 0 to change, 1 to destroy, 0 to import/);
      assert.match(finished.stderr, /post_plan stage: awaiting_override/);
      assert.match(finished.stderr, /plan-guard \(mandatory\): failed/);
      assert.match(finished.stderr, /PLAN-001: null_resource\.example will be replaced/);
      assert.match(finished.stderr, /awaits an override/);

      const { stage, result, outcomes } = await outcomesOfPostPlan(runId);
      assert.equal(stage.attributes.status, 'awaiting_override');
      assert.equal(result.attributes.status, 'failed');
      assert.equal(outcomes.length, 1, 'one outcome per offending resource address');
      assert.equal(outcomes[0].attributes['outcome-id'], 'PLAN-001');
      assert.match(outcomes[0].attributes.description, /^null_resource\.example /);
      assert.deepEqual(outcomes[0].attributes.tags.Severity, [{ label: 'High', level: 'error' }]);

      // The plan as the pipeline handed it over, byte for byte, and its log.
      const run = (await org.owner.api.get(`/runs/${runId}`)).body.data;
      const planId = run.relationships.plan.data.id;
      const json = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${planId}/json-output`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.deepEqual(json.rawPayload, fs.readFileSync(planFile('action_reason')));
      const log = await ctx.app.inject({ method: 'GET', url: `/api/v2/plans/${planId}/log`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.equal(log.body, fs.readFileSync(path.join(workDir, 'plan.log'), 'utf8'));

      // Waiting again changes nothing while nobody decided.
      const still = await cli('wait', '--run', runId);
      assert.equal(still.code, 3);

      const overridden = await org.owner.api.post(`/task-stages/${stage.id}/actions/override`, { comment: 'replacing the tainted resource is intended' });
      assert.equal(overridden.status, 200, overridden.text);
      const resumed = await cli('wait', '--run', runId);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, 'post_plan_completed');
      assert.match(resumed.stderr, /post_plan stage: passed/);

      const applyStart = await cli('apply-start', '--run', runId);
      assert.equal(applyStart.code, 0, applyStart.stderr);
      assert.match(applyStart.stderr, /apply confirmed/);
      assert.match(applyStart.stderr, /apply apply-\w+ claimed/);
      assert.equal((await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status, 'applying');

      const applyFinish = await cli('apply-finish', '--run', runId, '--log', path.join(workDir, 'apply.log'));
      assert.equal(applyFinish.code, 0, applyFinish.stderr);
      assert.equal(applyFinish.stdout, 'applied');
      // The counts from terraform's own 'Apply complete!' line, sent with the report.
      assert.match(applyFinish.stderr, /apply: 1 added, 0 changed, 1 destroyed/);
      const applied = await waitForRunStatus(org.owner.api, runId, 'applied');
      const applyId = applied.relationships.apply.data.id;
      const applyLog = await ctx.app.inject({ method: 'GET', url: `/api/v2/applies/${applyId}/log`, headers: { authorization: `Bearer ${org.owner.token}` } });
      assert.equal(applyLog.body, fs.readFileSync(path.join(workDir, 'apply.log'), 'utf8'));
    });

    it('a plan with no changes passes its post-plan stage and ends planned_and_finished; there is nothing to apply', async () => {
      const workspace = await gatedAgentWorkspace();
      const runId = await planStart(workspace, 'no_changes');
      const finished = await cli('plan-finish', '--run', runId, '--plan-json', planFile('no_changes'));
      assert.equal(finished.code, 0, finished.stderr);
      assert.equal(finished.stdout, 'planned_and_finished');
      assert.match(finished.stderr, /nothing to apply/);
      const { stage, result } = await outcomesOfPostPlan(runId);
      assert.equal(stage.attributes.status, 'passed');
      assert.equal(result.attributes.status, 'passed');
      const run = (await org.owner.api.get(`/runs/${runId}`)).body.data;
      assert.equal(run.attributes.status, 'planned_and_finished');
      assert.equal(run.attributes['has-changes'], false);

      const applyStart = await cli('apply-start', '--run', runId);
      assert.equal(applyStart.code, 1);
      assert.match(applyStart.stderr, /nothing to apply/);
    });

    it('a safe plan (creates only) passes and applies', async () => {
      const workspace = await gatedAgentWorkspace();
      const runId = await planStart(workspace, '120_basic');
      const finished = await cli('plan-finish', '--run', runId, '--plan-json', planFile('120_basic'), '--log', path.join(workDir, 'plan.log'));
      assert.equal(finished.code, 0, finished.stderr);
      assert.equal(finished.stdout, 'post_plan_completed');
      assert.match(finished.stderr, /plan: 7 to add, 0 to change, 0 to destroy, 0 to import/);
      assert.match(finished.stderr, /plan-guard \(mandatory\): passed/);
      const { result, outcomes } = await outcomesOfPostPlan(runId);
      assert.equal(result.attributes.status, 'passed');
      assert.deepEqual(outcomes, []);
      // The CI step re-run after its report landed: nothing is uploaded again, the verdict is the same.
      const again = await cli('plan-finish', '--run', runId, '--plan-json', planFile('120_basic'));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /reported already/);
      assert.equal((await cli('apply-start', '--run', runId)).code, 0);
      const applyFinish = await cli('apply-finish', '--run', runId);
      assert.equal(applyFinish.code, 0, applyFinish.stderr);
      assert.equal(applyFinish.stdout, 'applied');
      assert.equal((await cli('apply-finish', '--run', runId)).code, 0, 'a re-run of the step');
      await waitForRunStatus(org.owner.api, runId, 'applied');
    });

    it('all four stages: the CLI waits through pre-plan, post-plan, pre-apply and post-apply, printing each verdict', async () => {
      const created = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
      await attachRunTask(org.owner.api, created.id, taskId, { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] });
      const started = await cli('plan-start', '--organization', org.name, '--workspace', created.name, '--config-dir', path.join(FIXTURES, '120_basic'));
      assert.equal(started.code, 0, started.stderr);
      assert.match(started.stderr, /pre_plan stage: passed/);
      const runId = started.stdout;
      const finished = await cli('plan-finish', '--run', runId, '--plan-json', planFile('120_basic'));
      assert.equal(finished.code, 0, finished.stderr);
      assert.match(finished.stderr, /post_plan stage: passed/);
      const applyStart = await cli('apply-start', '--run', runId);
      assert.equal(applyStart.code, 0, applyStart.stderr);
      assert.match(applyStart.stderr, /pre_apply stage: passed/);
      const applyFinish = await cli('apply-finish', '--run', runId);
      assert.equal(applyFinish.code, 0, applyFinish.stderr);
      assert.equal(applyFinish.stdout, 'post_apply_completed');
      assert.match(applyFinish.stderr, /post_apply stage: passed/);
    });

    it('creating a resource type on the deny list fails, one outcome per address', async () => {
      const workspace = await gatedAgentWorkspace();
      const runId = await planStart(workspace, 'has_checks');
      const finished = await cli('plan-finish', '--run', runId, '--plan-json', planFile('has_checks'));
      assert.equal(finished.code, 3, finished.stderr);
      const { outcomes } = await outcomesOfPostPlan(runId);
      assert.deepEqual(
        outcomes.map((outcome: any) => outcome.attributes.description),
        [
          'module.files.local_file.foo["file1.txt"] is of a resource type on the deny list',
          'module.files.local_file.foo["file2.txt"] is of a resource type on the deny list',
        ],
      );
      // The person says no: discarding ends the run, and the pipeline learns it failed.
      const discarded = await org.owner.api.post(`/runs/${runId}/actions/discard`, { comment: 'no local files here' });
      assert.equal(discarded.status, 202, discarded.text);
      const waited = await cli('wait', '--run', runId);
      assert.equal(waited.code, 1);
      assert.equal(waited.stdout, 'discarded');
    });

    it('a plan the pipeline reports errored ends the run errored (exit 1)', async () => {
      const workspace = await gatedAgentWorkspace();
      const runId = await planStart(workspace, '120_basic');
      const reported = await cli('plan-finish', '--run', runId, '--error', 'terraform plan exited 1', '--log', path.join(workDir, 'plan.log'));
      assert.equal(reported.code, 1, reported.stderr);
      assert.equal(reported.stdout, 'errored');
      assert.equal((await org.owner.api.get(`/runs/${runId}`)).body.data.attributes.status, 'errored');
    });
  });
}
