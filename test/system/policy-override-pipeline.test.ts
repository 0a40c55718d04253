/**
 * Issue 29's acceptance with real processes: a CI job fetches the pipeline client from a live server
 * (`GET /pipeline/teamstage-pipeline.mjs`) and runs it against a real plan (test/fixtures/terraform-plans/120_basic,
 * `terraform show -json`) that breaks a mandatory policy and passes an advisory one, both judged by the real OPA
 * in the server process. The post-plan stage awaits an override (the job exits 3); a person without
 * `can-override-policy` is refused and nothing changes; a person with it (`manage-policy-overrides`) overrides;
 * `pipeline wait` picks the run up, the job applies, and the run's events hold every step. On PostgreSQL the
 * pipeline talks to one node and the people to another, so the hold and its release cross nodes.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { build } from 'esbuild';
import { assertSelfContained, pipelineBundleOptions } from '../../scripts/bundle-options.mjs';
import { VERSION } from '../../src/core/version.js';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { opaPath } from '../helpers/opa.js';
import { freePort } from '../helpers/postgres-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshDatabaseUrl, testDialects } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/terraform-plans/120_basic');
/** Mandatory, and broken by 120_basic's plan: it creates null_resource.bar. */
const NO_CREATES = `package teamstage.no_creates
import rego.v1
deny contains msg if {
  some change in input.plan.resource_changes
  "create" in change.change.actions
  msg := sprintf("%s would be created", [change.address])
}
`;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

for (const dialect of testDialects()) {
  describe(`a pipeline held by a mandatory policy, released by can-override-policy (${dialect}, real processes)`, { timeout: 400_000 }, () => {
    fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    const workDir = fs.mkdtempSync(path.join(ROOT, '.tmp', 'policy-pipeline-'));
    // The CI job's directory: no node_modules above it, so the fetched client must need nothing but node.
    const jobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-policy-job-'));
    const nodes: ServerProcess[] = [];
    const children = new Set<ChildProcess>();
    const clients: HttpClient[] = [];
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(nodes.map((node) => node.kill('SIGTERM')));
      await drop?.();
      fs.rmSync(workDir, { recursive: true, force: true });
      fs.rmSync(jobDir, { recursive: true, force: true });
    });

    it('awaits an override, refuses a caller without can-override-policy, moves on after one with it, applies, records every step', async () => {
      const served = path.join(workDir, 'teamstage-pipeline.mjs');
      const built = await build(pipelineBundleOptions(path.join(ROOT, 'src/pipeline/pipeline-main.ts'), served, VERSION));
      assertSelfContained(built.metafile);
      const database = await freshDatabaseUrl(dialect === 'sqlite' ? 'sqlite' : 'postgres');
      drop = database.drop;
      const siteToken = randomBytes(24).toString('hex');
      for (let index = 0; index < (dialect === 'postgres' ? 2 : 1); index++) {
        const port = await freePort();
        nodes.push(
          await startServerProcess(
            {
              DATABASE_URL: database.url,
              TEAMSTAGE_DATA_DIR: path.join(workDir, `data-${port}`),
              TEAMSTAGE_SITE_TOKEN: siteToken,
              TEAMSTAGE_BASE_URL: `http://127.0.0.1:${port}`,
              TEAMSTAGE_RATE_LIMIT: '0',
              TEAMSTAGE_JOB_POLL: '0.2',
              TEAMSTAGE_OPA_PATH: opaPath(),
              TEAMSTAGE_POLICY_TIMEOUT: '60',
              TEAMSTAGE_PIPELINE_CLIENT_FILE: served,
            },
            { port, readyTimeoutMs: 120_000 },
          ),
        );
      }
      const pipelineNode = nodes[0]!;
      const peopleNode = nodes[nodes.length - 1]!;
      const http = new HttpClient(peopleNode.url, 2);
      clients.push(http);
      const { ownerToken, organization } = await bootstrapOrganization(http, siteToken, `pol${randomBytes(3).toString('hex')}`);
      const call = async (token: string, method: string, url: string, body: unknown, status: number) => {
        const response = await http.request(method, url, token, body);
        assert.equal(response.status, status, `${method} ${url}: ${response.text}`);
        return response.body;
      };

      // People: one who may override run tasks but not policies, one with manage-policy-overrides.
      const person = async (name: string, access: Record<string, boolean>) => {
        const username = `${name}-${organization}`;
        const user = await call(siteToken, 'POST', '/admin/users', { data: { type: 'users', attributes: { username, email: `${username}@example.test` } } }, 201);
        const token = (await call(siteToken, 'POST', `/users/${user.data.id}/authentication-tokens`, {}, 201)).data.attributes.token as string;
        const invited = await call(ownerToken, 'POST', `/organizations/${organization}/organization-memberships`, {
          data: { type: 'organization-memberships', attributes: { email: `${username}@example.test` } },
        }, 201);
        await call(token, 'POST', `/organization-memberships/${invited.data.id}/actions/accept`, undefined, 200);
        const team = await call(ownerToken, 'POST', `/organizations/${organization}/teams`, {
          data: { type: 'teams', attributes: { name: `${name}s`, 'organization-access': access } },
        }, 200);
        await call(ownerToken, 'POST', `/teams/${team.data.id}/relationships/users`, { data: [{ type: 'users', id: username }] }, 204);
        return { username, token };
      };
      const taskReviewer = await person('task-reviewer', { 'read-workspaces': true, 'manage-run-tasks': true });
      const policyApprover = await person('policy-approver', { 'read-workspaces': true, 'manage-policy-overrides': true });
      // The CI job's token: a team token that may run the workspace, nothing about policies.
      const ci = await call(ownerToken, 'POST', `/organizations/${organization}/teams`, {
        data: { type: 'teams', attributes: { name: 'ci', 'organization-access': { 'manage-workspaces': true } } },
      }, 200);
      const ciToken = (await call(ownerToken, 'POST', `/teams/${ci.data.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'pipeline' } } }, 201))
        .data.attributes.token as string;

      const workspace = await call(ownerToken, 'POST', `/organizations/${organization}/workspaces`, {
        data: { type: 'workspaces', attributes: { name: 'network', 'execution-mode': 'agent' } },
      }, 201);
      const policy = async (name: string, level: string, query: string, rego: string) => {
        const created = await call(ownerToken, 'POST', `/organizations/${organization}/policies`, {
          data: { type: 'policies', attributes: { name, kind: 'opa', query, 'enforcement-level': level } },
        }, 201);
        await call(ownerToken, 'PUT', `/policies/${created.data.id}/upload`, rego, 204);
        return created.data.id as string;
      };
      const mandatory = await policy('no-creates', 'mandatory', 'data.teamstage.no_creates.deny', NO_CREATES);
      const advisory = await policy('required-tags', 'advisory', 'data.terraform.policies.required_tags.deny', fs.readFileSync(path.join(ROOT, 'examples/policies/required_tags.rego'), 'utf8'));
      await call(ownerToken, 'POST', `/organizations/${organization}/policy-sets`, {
        data: {
          type: 'policy-sets',
          attributes: { name: 'gate', kind: 'opa', overridable: true },
          relationships: {
            policies: { data: [{ id: mandatory, type: 'policies' }, { id: advisory, type: 'policies' }] },
            workspaces: { data: [{ id: workspace.data.id, type: 'workspaces' }] },
          },
        },
      }, 201);

      // The CI job: fetch the client from the server, as the README's one-liner does.
      const fetched = await fetch(`${pipelineNode.url}/pipeline/teamstage-pipeline.mjs`);
      assert.equal(fetched.status, 200);
      const client = path.join(jobDir, 'teamstage-pipeline.mjs');
      fs.writeFileSync(client, Buffer.from(await fetched.arrayBuffer()));
      fs.copyFileSync(path.join(FIXTURE, 'plan.json'), path.join(jobDir, 'plan.json'));
      fs.writeFileSync(path.join(jobDir, 'apply.log'), 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n');
      const configDir = path.join(jobDir, 'config');
      fs.mkdirSync(configDir);
      for (const file of fs.readdirSync(FIXTURE).filter((name) => name.endsWith('.tf'))) fs.copyFileSync(path.join(FIXTURE, file), path.join(configDir, file));
      const pipeline = (...args: string[]): Promise<CliResult> => {
        const env: NodeJS.ProcessEnv = { ...process.env };
        for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE_')) delete env[key];
        Object.assign(env, { TEAMSTAGE_ADDRESS: pipelineNode.url, TEAMSTAGE_TOKEN: ciToken, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' });
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [client, ...args, '--poll-interval', '0.2', '--timeout', '120'], { cwd: jobDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
          children.add(child);
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk) => (stdout += chunk));
          child.stderr.on('data', (chunk) => (stderr += chunk));
          child.on('error', reject);
          child.on('close', (code) => {
            children.delete(child);
            resolve({ code, stdout: stdout.trim(), stderr });
          });
        });
      };

      const started = await pipeline('plan-start', '--organization', organization, '--workspace', 'network', '--config-dir', 'config', '--message', 'policy gate');
      assert.equal(started.code, 0, started.stderr);
      const runId = started.stdout;
      assert.match(runId, /^run-/);

      // The plan breaks the mandatory policy: the job stops with 3 and says why, policy by policy.
      const held = await pipeline('plan-finish', '--run', runId, '--plan-json', 'plan.json');
      assert.equal(held.code, 3, held.stderr);
      assert.equal(held.stdout, 'post_plan_awaiting_decision');
      assert.match(held.stderr, /post_plan stage: awaiting_override/);
      assert.match(held.stderr, /policies: failed \(1 passed, 0 advisory failed, 1 mandatory failed, 0 errored\)/);
      assert.match(held.stderr, /no-creates \(mandatory\): failed\n(\s+- .+\n)*\s+- null_resource\.bar would be created\n/);
      assert.match(held.stderr, /required-tags \(advisory\): passed/);
      assert.match(held.stderr, new RegExp(`teamstage pipeline wait --run ${runId}`));
      const [stage] = (await call(ownerToken, 'GET', `/runs/${runId}/task-stages`, undefined, 200)).data;
      assert.equal(stage.attributes.status, 'awaiting_override');
      const shownTo = async (token: string) => (await call(token, 'GET', `/task-stages/${stage.id}`, undefined, 200)).data;
      assert.equal((await shownTo(taskReviewer.token)).attributes.permissions['can-override-policy'], false);
      assert.equal((await shownTo(policyApprover.token)).attributes.permissions['can-override-policy'], true);

      // Without can-override-policy: refused, and the stage and run stay held.
      const refused = await http.request('POST', `/task-stages/${stage.id}/actions/override`, taskReviewer.token, { comment: 'let me' });
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.errors[0].detail, /not allowed to override/);
      assert.equal((await shownTo(ownerToken)).attributes.status, 'awaiting_override');
      assert.equal((await call(ownerToken, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status, 'post_plan_awaiting_decision');

      // With it: released.
      const overridden = await call(policyApprover.token, 'POST', `/task-stages/${stage.id}/actions/override`, { comment: 'accepted: a lab resource' }, 200);
      assert.equal(overridden.data.attributes.status, 'running');
      await waitUntil(async () => (await shownTo(ownerToken)).attributes.status === 'passed', 30_000, 'the overridden stage did not pass');
      const [evaluation] = (await call(ownerToken, 'GET', `/task-stages/${stage.id}/policy-evaluations`, undefined, 200)).data;
      assert.equal(evaluation.attributes.status, 'overridden');

      // The job picks the run up again and applies.
      const resumed = await pipeline('wait', '--run', runId);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /post_plan stage: passed/);
      const applyStarted = await pipeline('apply-start', '--run', runId);
      assert.equal(applyStarted.code, 0, applyStarted.stderr);
      const applied = await pipeline('apply-finish', '--run', runId, '--log', 'apply.log');
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(applied.stdout, 'applied');

      // Every step is in the run's events, in order, read from the pipeline's node.
      const pipelineHttp = new HttpClient(pipelineNode.url, 1);
      clients.push(pipelineHttp);
      const eventsResponse = await pipelineHttp.request('GET', `/runs/${runId}/run-events?page%5Bsize%5D=100`, ownerToken);
      assert.equal(eventsResponse.status, 200, eventsResponse.text);
      const events = (eventsResponse.body.data as any[]).map((event) => event.attributes);
      const trail = events.map((event) => `${event.action}: ${event.description}`).join('\n');
      assert.deepEqual(events.map((event) => event.action), [
        'queued', 'plan_queued', 'planning', 'planned',
        'post_plan_running', 'policy_evaluation_failed', 'task_stage_awaiting_override', 'post_plan_awaiting_decision',
        'overridden', 'task_stage_passed', 'post_plan_completed',
        'confirmed', 'apply_queued', 'applying', 'applied',
      ], trail);
      const described = (action: string) => events.find((event) => event.action === action)!.description as string;
      assert.match(described('policy_evaluation_failed'), /1 passed, 0 advisory failed, 1 mandatory failed, 0 errored/);
      assert.match(described('overridden'), new RegExp(`^${policyApprover.username} overrode the post-plan task stage \\(1 of 1 approval\\)`));
      assert.match(described('task_stage_passed'), /after its override/);
      assert.ok(!trail.includes(taskReviewer.username), `the refused caller left a trace:\n${trail}`);
      assert.equal((await call(ownerToken, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status, 'applied');
    });
  });
}
