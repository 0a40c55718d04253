/**
 * The plan counts against real `terraform show -json` plans (test/fixtures/terraform-plans, from
 * HashiCorp's terraform-json testdata). The expected numbers are written out per fixture, read off each
 * fixture's `resource_changes` by hand (the actions are listed in the fixtures' README), not computed:
 * a table the function must match, not a second copy of it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkPlanJson, summarizePlan, type PlanSummary } from '../../src/runs/plan-summary.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');

const EXPECTED: Record<string, PlanSummary> = {
  // 7 × ["create"]: null_resource.{bar,foo}, baz[0..2], module.foo.null_resource.{aliased,foo}.
  '120_basic': { hasChanges: true, resourceAdditions: 7, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
  // null_resource.example ["delete","create"] (replace_because_tainted): one addition and one destruction.
  action_reason: { hasChanges: true, resourceAdditions: 1, resourceChanges: 0, resourceDestructions: 1, resourceImports: 0 },
  // null_resource.bar ["delete","create"], null_resource.foo ["no-op"].
  config_resource_depends_on: { hasChanges: true, resourceAdditions: 1, resourceChanges: 0, resourceDestructions: 1, resourceImports: 0 },
  // 6 × ["no-op"]; its output_changes say "create" for every output, as Terraform 0.12 always did: no changes.
  has_changes: { hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
  // 2 × ["create"]: module.files.local_file.foo["file1.txt"], ["file2.txt"].
  has_checks: { hasChanges: true, resourceAdditions: 2, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
  // corner_user_identity.user ["update"] with change.importing: one change, one import.
  identity: { hasChanges: true, resourceAdditions: 0, resourceChanges: 1, resourceDestructions: 0, resourceImports: 1 },
  // random_id.test2 ["no-op"], previous_address random_id.test: a move, which Terraform counts as a change to apply.
  moved_block: { hasChanges: true, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
  // 6 × ["no-op"] (outputs as in has_changes).
  no_changes: { hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
  // example_resource.test ["create"].
  numerics: { hasChanges: true, resourceAdditions: 1, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 },
};

describe('plan summary (HCP plan counts) of real Terraform plans', () => {
  const folders = fs.readdirSync(FIXTURES, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();

  it('has an expectation for every fixture plan copied into the tests', () => {
    assert.deepEqual(folders, Object.keys(EXPECTED).sort());
  });

  for (const folder of folders) {
    it(`${folder}: counts and has-changes as its resource_changes say`, () => {
      const body = fs.readFileSync(path.join(FIXTURES, folder, 'plan.json'));
      const checked = checkPlanJson(body);
      assert.ok(checked.ok, checked.ok ? '' : checked.problem);
      assert.deepEqual(checked.summary, EXPECTED[folder]);
      assert.equal(Buffer.from(checked.text, 'utf8').equals(body), true, 'the text stored is the bytes uploaded');
    });
  }
});

describe('plan summary rules', () => {
  const change = (actions: string[], extra: Record<string, unknown> = {}) => ({ address: 'a.b', change: { actions, ...extra } });

  it('counts each action kind as Terraform does', () => {
    const plan = {
      format_version: '1.2',
      resource_changes: [
        change(['create']), change(['update']), change(['delete']), change(['create', 'delete']), change(['read']), change(['no-op'], { importing: { id: 'x' } }),
      ],
    };
    assert.deepEqual(summarizePlan(plan), { hasChanges: true, resourceAdditions: 2, resourceChanges: 1, resourceDestructions: 2, resourceImports: 1 });
  });

  it('an empty or unreadable resource_changes is no change', () => {
    assert.deepEqual(summarizePlan({ format_version: '1.2' }).hasChanges, false);
    assert.deepEqual(summarizePlan({ format_version: '1.2', resource_changes: [null, 3, { change: 'x' }, change(['read'])] }).hasChanges, false);
  });

  it('refuses what is not a plan JSON document', () => {
    const problem = (body: string | Buffer) => {
      const checked = checkPlanJson(Buffer.isBuffer(body) ? body : Buffer.from(body));
      return checked.ok ? undefined : checked.problem;
    };
    assert.match(problem('not json')!, /not valid JSON/);
    assert.match(problem('[]')!, /JSON object/);
    assert.match(problem('{"resource_changes":[]}')!, /format_version/);
    assert.match(problem('{"format_version":1.2}')!, /format_version/);
    assert.match(problem(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))!, /UTF-8/);
    assert.equal(problem('{"format_version":"1.2"}'), undefined);
  });
});
