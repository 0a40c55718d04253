/**
 * examples/policies (issue 29) judged by the real OPA, through the server's own engine, over the real plan
 * fixtures (terraform show -json of test/fixtures/terraform-plans) and a few plans made to break each rule.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { OpaEngine, findOpa } from '../../src/policies/opa-engine.js';
import { opaPath } from '../helpers/opa.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const POLICIES = ['no_public_ingress', 'required_tags', 'no_destroy_protected'] as const;
const found = findOpa(opaPath());
assert.ok(found.path);
const engine = new OpaEngine(found.path, found.version, { timeoutMs: 10_000, memoryBytes: 512 * 1024 * 1024, maxOutputBytes: 1 << 20, concurrency: 2, perOrganization: 2 });
const scratch = mkdtempSync(path.join(tmpdir(), 'example-policies-'));

async function judge(plan: unknown, run: Record<string, unknown> = { is_destroy: false }): Promise<Record<string, unknown>> {
  const input = path.join(scratch, `input-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(input, JSON.stringify({ plan, run }));
  const verdicts: Record<string, unknown> = {};
  for (const name of POLICIES) {
    const rego = readFileSync(path.join(ROOT, 'examples/policies', `${name}.rego`), 'utf8');
    const answer = await engine.evaluate({ rego, regoVersion: 'v1', query: `data.terraform.policies.${name}.deny` }, input, 'org');
    assert.ok(answer.ok && answer.defined, `${name}: ${JSON.stringify(answer)}`);
    verdicts[name] = answer.value;
  }
  return verdicts;
}

const change = (address: string, type: string, actions: string[], after: Record<string, unknown> | null) => ({ address, type, change: { actions, after } });

describe('examples/policies', { timeout: 120_000 }, () => {
  it('every real plan fixture passes all three (no network rules, no tags, nothing protected destroyed)', async () => {
    const fixtures = readdirSync(FIXTURES).filter((name) => existsSync(path.join(FIXTURES, name, 'plan.json')));
    assert.ok(fixtures.length >= 9);
    for (const fixture of fixtures) {
      const plan = JSON.parse(readFileSync(path.join(FIXTURES, fixture, 'plan.json'), 'utf8'));
      assert.deepEqual(await judge(plan), { no_public_ingress: [], required_tags: [], no_destroy_protected: [] }, fixture);
    }
  });

  it('a real plan turned against each rule fails it with a message naming the resource', async () => {
    // action_reason replaces null_resource.*: the same plan replacing a database instead.
    const replaced = JSON.parse(readFileSync(path.join(FIXTURES, 'action_reason/plan.json'), 'utf8'));
    for (const rc of replaced.resource_changes) rc.type = 'aws_db_instance';
    const verdict = await judge(replaced);
    assert.ok((verdict.no_destroy_protected as string[]).length > 0);
    assert.match((verdict.no_destroy_protected as string[])[0]!, /\(aws_db_instance\) would be replaced/);
    assert.deepEqual((await judge(replaced, { is_destroy: true })).no_destroy_protected, [], 'a destroy run may destroy');

    const made = {
      resource_changes: [
        change('aws_security_group.web', 'aws_security_group', ['create'], { ingress: [{ cidr_blocks: ['0.0.0.0/0'], from_port: 22, to_port: 22 }], tags: { owner: 'a', 'cost-center': 'b' } }),
        change('aws_security_group_rule.db', 'aws_security_group_rule', ['create'], { type: 'ingress', cidr_blocks: ['10.0.0.0/8'] }),
        change('aws_instance.app', 'aws_instance', ['update'], { tags: { owner: 'me' } }),
        change('aws_instance.bare', 'aws_instance', ['create'], { tags: null }),
      ],
    };
    assert.deepEqual(await judge(made), {
      no_public_ingress: ['aws_security_group.web allows ingress from 0.0.0.0/0 on ports 22-22'],
      required_tags: ['aws_instance.app is missing the tags ["cost-center"]', 'aws_instance.bare is missing the tags ["cost-center", "owner"]'],
      no_destroy_protected: [],
    });
  });
});
