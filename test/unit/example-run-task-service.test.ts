import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain JavaScript example without type declarations
import { createServer, findingsOf, judgePlan, parseList, signatureMatches, workspaceRule } from '../../examples/run-task-service/server.mjs';
import { waitUntil } from '../helpers/wait-until.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const plan = (name: string) => JSON.parse(fs.readFileSync(path.join(fixtures, name, 'plan.json'), 'utf8'));
const defaults = { denyResourceTypes: [], allowDestroy: false, failWorkspacePattern: '' };

describe('examples/run-task-service', () => {
  it('checks the signature against the exact body', () => {
    const body = Buffer.from('{"a":1}');
    const signature = createHmac('sha512', 'k').update(body).digest('hex');
    assert.equal(signatureMatches(body, signature, 'k'), true);
    assert.equal(signatureMatches(Buffer.from('{"a":2}'), signature, 'k'), false);
    assert.equal(signatureMatches(body, signature, 'other'), false);
    assert.equal(signatureMatches(body, undefined, 'k'), false);
    assert.equal(signatureMatches(body, '', ''), true, 'no key configured: not checked');
  });

  it('reads the deny list from a comma- or space-separated variable', () => {
    assert.deepEqual(parseList(' aws_iam_user, null_resource  local_file,,'), ['aws_iam_user', 'null_resource', 'local_file']);
    assert.deepEqual(parseList(undefined), []);
  });

  it('fails a real plan that replaces a resource, with one outcome naming it', () => {
    const verdict = judgePlan(plan('action_reason'), defaults, 'http://teamstage.test/app/acme/ws/runs/run-1');
    assert.equal(verdict.status, 'failed');
    assert.match(verdict.message, /1 resource destroyed or replaced: null_resource\.example\./);
    assert.equal(verdict.outcomes.length, 1);
    const [outcome] = verdict.outcomes;
    assert.equal(outcome['outcome-id'], 'PLAN-001');
    assert.equal(outcome.description, 'null_resource.example will be replaced (destroyed, then created again)');
    assert.match(outcome.body, /^## null_resource\.example\n/);
    assert.match(outcome.body, /`delete, create`/);
    assert.match(outcome.body, /replace_because_tainted/, 'Terraform\'s own reason is shown');
    assert.equal(outcome.url, 'http://teamstage.test/app/acme/ws/runs/run-1');
    assert.deepEqual(outcome.tags.Severity, [{ label: 'High', level: 'error' }]);
    assert.deepEqual(outcome.tags.Rule, [{ label: 'replace', level: 'info' }]);
  });

  it('one finding per offending address; no-op resources of the same plan are not findings', () => {
    // config_resource_depends_on: null_resource.bar is replaced, null_resource.foo is a no-op.
    assert.deepEqual(findingsOf(plan('config_resource_depends_on'), defaults).map((finding: any) => [finding.address, finding.reasons]), [
      ['null_resource.bar', ['replace']],
    ]);
    // A delete-only change is a destroy.
    const deleteOnly = { format_version: '1.2', resource_changes: [{ address: 'aws_s3_bucket.logs', type: 'aws_s3_bucket', change: { actions: ['delete'] } }] };
    const verdict = judgePlan(deleteOnly, defaults);
    assert.equal(verdict.status, 'failed');
    assert.equal(verdict.outcomes[0].description, 'aws_s3_bucket.logs will be destroyed');
    assert.deepEqual(verdict.outcomes[0].tags.Rule, [{ label: 'destroy', level: 'info' }]);
  });

  it('passes creates, updates, no-ops and moved resources', () => {
    for (const name of ['120_basic', 'has_checks', 'numerics', 'identity', 'no_changes', 'has_changes', 'moved_block']) {
      const verdict = judgePlan(plan(name), defaults);
      assert.equal(verdict.status, 'passed', name);
      assert.deepEqual(verdict.outcomes, [], name);
    }
  });

  it('fails creates of a denied resource type, one outcome per address', () => {
    const verdict = judgePlan(plan('120_basic'), { ...defaults, denyResourceTypes: ['null_resource'] });
    assert.equal(verdict.status, 'failed');
    assert.deepEqual(verdict.outcomes.map((outcome: any) => outcome.description.split(' ')[0]), [
      'module.foo.null_resource.aliased', 'module.foo.null_resource.foo', 'null_resource.bar',
      'null_resource.baz[0]', 'null_resource.baz[1]', 'null_resource.baz[2]', 'null_resource.foo',
    ]);
    assert.deepEqual(verdict.outcomes.map((outcome: any) => outcome['outcome-id']).slice(0, 2), ['PLAN-001', 'PLAN-002']);
    assert.match(verdict.message, /7 of a denied type: module\.foo\.null_resource\.aliased, .* and 2 more\./);
    assert.deepEqual(verdict.outcomes[0].tags.Rule, [{ label: 'denied-type', level: 'info' }]);
    // Other types pass; an update of a denied type creates nothing.
    assert.equal(judgePlan(plan('has_checks'), { ...defaults, denyResourceTypes: ['null_resource'] }).status, 'passed');
    assert.equal(judgePlan(plan('identity'), { ...defaults, denyResourceTypes: ['corner_user_identity'] }).status, 'passed');
  });

  it('a replace of a denied type is one outcome with both reasons; ALLOW_DESTROY lets destroys through', () => {
    const both = judgePlan(plan('action_reason'), { ...defaults, denyResourceTypes: ['null_resource'] });
    assert.equal(both.outcomes.length, 1);
    assert.deepEqual(both.outcomes[0].tags.Rule.map((tag: any) => tag.label), ['replace', 'denied-type']);
    assert.equal(judgePlan(plan('action_reason'), { ...defaults, allowDestroy: true }).status, 'passed');
    assert.equal(judgePlan(plan('action_reason'), { ...defaults, allowDestroy: true, denyResourceTypes: ['null_resource'] }).status, 'failed');
  });

  it('keeps the workspace-name rule as an option, off by default', () => {
    assert.equal(workspaceRule({ workspace_name: 'payments-prod' }, defaults), undefined);
    const failed = workspaceRule({ workspace_name: 'payments-PROD' }, { ...defaults, failWorkspacePattern: 'prod' });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.outcomes[0]['outcome-id'], 'NAME-001');
    assert.equal(workspaceRule({ workspace_name: 'payments-dev' }, { ...defaults, failWorkspacePattern: 'prod' }), undefined);
  });

  it('answers 401 to a bad signature and 200 to a good one', async () => {
    const server = createServer({ ...defaults, hmacKey: 'k', verdictDelayMs: 0, quiet: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const body = JSON.stringify({ stage: 'test', access_token: 'test-token' });
      const bad = await fetch(url, { method: 'POST', body, headers: { 'x-tfc-task-signature': 'nope' } });
      assert.equal(bad.status, 401);
      const good = await fetch(url, { method: 'POST', body, headers: { 'x-tfc-task-signature': createHmac('sha512', 'k').update(body).digest('hex') } });
      assert.equal(good.status, 200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('downloads the plan with the access token and calls back running, then the verdict with its outcomes', async () => {
    const seen: Array<{ method: string; url: string; authorization?: string; body?: any }> = [];
    const planBytes = fs.readFileSync(path.join(fixtures, 'action_reason', 'plan.json'));
    const teamstage = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body: text ? JSON.parse(text) : undefined });
        if (request.method === 'GET') response.writeHead(200, { 'content-type': 'application/json' }).end(planBytes);
        else response.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => teamstage.listen(0, '127.0.0.1', resolve));
    const server = createServer({ ...defaults, hmacKey: '', verdictDelayMs: 0, quiet: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(teamstage.address() as AddressInfo).port}`;
      const payload = {
        stage: 'post_plan', access_token: 'tok-1', task_result_id: 'taskrs-1', workspace_name: 'ws',
        plan_json_api_url: `${base}/api/v2/plans/plan-1/json-output`,
        task_result_callback_url: `${base}/api/v2/task-results/taskrs-1/callback`,
        run_app_url: `${base}/app/acme/ws/runs/run-1`,
      };
      const answered = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST', body: JSON.stringify(payload) });
      assert.equal(answered.status, 200);
      await answered.arrayBuffer();
      await waitUntil(() => seen.length >= 3, 15_000, 'the example service never made its three requests');
      await server.settled();
      assert.deepEqual(seen.map((request) => [request.method, request.url, request.authorization]), [
        ['PATCH', '/api/v2/task-results/taskrs-1/callback', 'Bearer tok-1'],
        ['GET', '/api/v2/plans/plan-1/json-output', 'Bearer tok-1'],
        ['PATCH', '/api/v2/task-results/taskrs-1/callback', 'Bearer tok-1'],
      ]);
      assert.equal(seen[0]!.body.data.attributes.status, 'running');
      const verdict = seen[2]!.body.data;
      assert.equal(verdict.type, 'task-results');
      assert.equal(verdict.attributes.status, 'failed');
      const outcomes = verdict.relationships.outcomes.data;
      assert.equal(outcomes.length, 1);
      assert.equal(outcomes[0].type, 'task-result-outcomes');
      assert.match(outcomes[0].attributes.description, /^null_resource\.example /);
    } finally {
      for (const s of [server, teamstage]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    }
  });
});
