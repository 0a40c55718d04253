/**
 * Issue 34, items 1 and 6: policies reach nothing outside the plan, and their number and size are bounded.
 *
 * - Uploading a policy that calls `http.send` (or `net.lookup_ip_addr`, `time.now_ns`, …), in Rego v1 or v0, is
 *   a 422 that names the built-in.
 * - A policy written into the database directly (as one stored before the rule was) that calls `http.send` to a
 *   listener on 127.0.0.1 errors at evaluation, with the built-in named, and the listener gets no connection.
 * - An organization's policies stop at TEAMSTAGE_POLICIES_PER_ORGANIZATION, even when created at once; a policy
 *   over TEAMSTAGE_POLICY_MAX_BYTES is a 422 that names the setting.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runPipeline } from '../../src/pipeline/pipeline-command.js';
import type { Output } from '../../src/pipeline/stage-report.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createWorkspace } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');

const REACHING: Array<{ builtin: string; rego: string }> = [
  { builtin: 'http.send', rego: 'package reach\nimport rego.v1\ndeny contains r.body if { r := http.send({"method": "GET", "url": "http://127.0.0.1:1/"}) }\n' },
  { builtin: 'http.send', rego: 'package reach\ndeny[msg] { r := http.send({"method": "GET", "url": "http://127.0.0.1:1/"}); msg := r.body }\n' },
  { builtin: 'net.lookup_ip_addr', rego: 'package reach\nimport rego.v1\ndeny contains a if { some a in net.lookup_ip_addr("localhost") }\n' },
  { builtin: 'time.now_ns', rego: 'package reach\nimport rego.v1\ndeny contains "late" if { time.now_ns() > 0 }\n' },
  { builtin: 'opa.runtime', rego: 'package reach\nimport rego.v1\ndeny contains k if { some k, _ in opa.runtime().env }\n' },
];

for (const dialect of testDialects()) {
  describe(`policies reach nothing outside the plan (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_OPA_PATH: opaPath(), TEAMSTAGE_POLICIES_PER_ORGANIZATION: '5', TEAMSTAGE_POLICY_MAX_BYTES: '4096' });
      org = await createOrganization(ctx);
    });
    after(async () => ctx.close());

    async function createPolicy(name: string, level = 'advisory', query = 'data.reach.deny') {
      return org.owner.api.post(`/organizations/${org.name}/policies`, { data: { type: 'policies', attributes: { name, kind: 'opa', query, 'enforcement-level': level } } });
    }
    const upload = (id: string, rego: string) =>
      ctx.app.inject({
        method: 'PUT', url: `/api/v2/policies/${id}/upload`, payload: rego,
        headers: { authorization: `Bearer ${org.owner.token}`, 'content-type': 'application/octet-stream' },
      });

    it('refuses at upload a policy that calls a built-in reaching outside the plan, naming it (v1 and v0)', async () => {
      const created = await createPolicy('reach');
      assert.equal(created.status, 201, created.text);
      for (const { builtin, rego } of REACHING) {
        const refused = await upload(created.body.data.id, rego);
        assert.equal(refused.statusCode, 422, `${builtin}: ${refused.body}`);
        const detail = JSON.parse(refused.body).errors[0].detail as string;
        assert.equal(detail, `the policy calls ${builtin}, which policies cannot use on this server: a policy sees the plan and the run, never the network, the clock or chance`);
      }
      // Nothing was stored.
      assert.equal((await org.owner.api.get(`/policies/${created.body.data.id}/download`)).status, 404);
      // Pure built-ins stay: CIDR checks are common in plan policies.
      assert.equal((await upload(created.body.data.id, 'package reach\nimport rego.v1\ndeny contains c if { some c in ["10.0.0.0/8"]; net.cidr_contains(c, "10.1.2.3") }\n')).statusCode, 204);
      await org.owner.api.delete(`/policies/${created.body.data.id}`);
    });

    it('a policy stored directly in the database that calls http.send errors at evaluation; the listener gets no connection', async () => {
      let connections = 0;
      const sockets = new Set<net.Socket>();
      const listener = net.createServer((socket) => {
        connections += 1;
        sockets.add(socket);
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as net.AddressInfo).port;
      try {
        const created = await createPolicy('stored-before', 'mandatory');
        assert.equal(created.status, 201, created.text);
        const policyId = created.body.data.id as string;
        assert.equal((await upload(policyId, 'package reach\nimport rego.v1\ndeny contains "x" if { false }\n')).statusCode, 204);
        // As a policy uploaded before the rule: the text changed behind the upload's check.
        const rego = `package reach\nimport rego.v1\ndeny contains sprintf("%v", [r.status_code]) if { r := http.send({"method": "GET", "url": "http://127.0.0.1:${port}/"}) }\n`;
        await ctx.handle.db.updateTable('policies').set({ rego, rego_version: 'v1' }).where('id', '=', policyId).execute();
        const workspace = await createWorkspace(org.owner.api, org.name, { 'execution-mode': 'agent' });
        const set = await org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
          data: {
            type: 'policy-sets', attributes: { name: 'reach', kind: 'opa' },
            relationships: { policies: { data: [{ id: policyId, type: 'policies' }] }, workspaces: { data: [{ id: workspace.id, type: 'workspaces' }] } },
          },
        });
        assert.equal(set.status, 201, set.text);
        const out: Output = { info: () => {}, result: () => {} };
        const stdout: string[] = [];
        const env = { TEAMSTAGE_ADDRESS: ctx.config.baseUrl, TEAMSTAGE_TOKEN: org.owner.token, TEAMSTAGE_PIPELINE_RETRY_DELAYS: '0.1' };
        const cli = (...args: string[]) => runPipeline([...args, '--poll-interval', '0.05', '--timeout', '60'], env, { ...out, result: (line) => stdout.push(line) });
        assert.equal(await cli('plan-start', '--organization', org.name, '--workspace', workspace.name, '--config-dir', path.join(FIXTURES, '120_basic')), 0);
        const runId = stdout[0]!;
        await cli('plan-finish', '--run', runId, '--plan-json', path.join(FIXTURES, '120_basic/plan.json'));
        const [stage] = (await org.owner.api.get(`/runs/${runId}/task-stages`)).body.data;
        const [evaluation] = (await org.owner.api.get(`/task-stages/${stage.id}/policy-evaluations`)).body.data;
        assert.equal(evaluation.attributes.status, 'errored', JSON.stringify(evaluation.attributes));
        const [outcome] = (await org.owner.api.get(`/policy-evaluations/${evaluation.id}/policy-set-outcomes`)).body.data;
        const [policyOutcome] = outcome.attributes.outcomes;
        assert.equal(policyOutcome.status, 'errored');
        assert.match(policyOutcome.output[0].print, /^the policy calls http\.send, which policies cannot use on this server/);
        assert.equal(connections, 0, 'the listener was reached');
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => listener.close(resolve));
      }
    });

    it('limits policies per organization (even created at once) and the size of a policy, each with a named 422', async () => {
      const existing = (await org.owner.api.get(`/organizations/${org.name}/policies`)).body.data.length as number;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createPolicy(`many-${i}`)));
      assert.equal(answers.filter((answer) => answer.status === 201).length, 5 - existing);
      for (const refused of answers.filter((answer) => answer.status !== 201)) {
        assert.equal(refused.status, 422, refused.text);
        assert.equal(refused.body.errors[0].detail, 'the organization has 5 policies, the most it may have (TEAMSTAGE_POLICIES_PER_ORGANIZATION); delete one first');
      }
      assert.equal((await org.owner.api.get(`/organizations/${org.name}/policies`)).body.data.length, 5);
      const some = answers.find((answer) => answer.status === 201)!;
      const big = await upload(some.body.data.id, `package reach\nimport rego.v1\n# ${'x'.repeat(5000)}\ndeny := []\n`);
      assert.equal(big.statusCode, 422, big.body);
      assert.equal(JSON.parse(big.body).errors[0].detail, 'the policy is larger than the limit of 4096 bytes (TEAMSTAGE_POLICY_MAX_BYTES)');
    });
  });
}
