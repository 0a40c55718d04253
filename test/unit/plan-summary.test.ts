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
import { checkPlanJsonBytes, PlanJsonScanner, type PlanJsonCheck } from '../../src/runs/plan-json-scanner.js';
import type { PlanSummary } from '../../src/runs/plan-summary.js';

const BOUNDS = { maxDepth: 128, maxValues: 10_000_000 };
const checkPlanJson = (body: Buffer): PlanJsonCheck => checkPlanJsonBytes(body, BOUNDS);
const summarizePlan = (plan: unknown): PlanSummary => {
  const checked = checkPlanJson(Buffer.from(JSON.stringify(plan)));
  assert.ok(checked.ok, checked.ok ? '' : JSON.stringify(checked.problem));
  return checked.summary;
};
/** The problem's detail, or undefined when the body passes. */
const problemOf = (checked: PlanJsonCheck) => (checked.ok ? undefined : checked.problem.kind === 'invalid' ? checked.problem.detail : checked.problem.kind);

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
      assert.ok(checked.ok, problemOf(checked));
      assert.deepEqual(checked.summary, EXPECTED[folder]);
    });

    it(`${folder}: the same when the bytes arrive one at a time (the stream splits tokens and characters anywhere)`, () => {
      const body = fs.readFileSync(path.join(FIXTURES, folder, 'plan.json'));
      const scanner = new PlanJsonScanner(BOUNDS);
      for (let i = 0; i < body.length; i++) scanner.write(body.subarray(i, i + 1));
      const checked = scanner.end();
      assert.ok(checked.ok, problemOf(checked));
      assert.deepEqual(checked.summary, EXPECTED[folder]);
    });
  }
});

function summarizePlanText(text: string): PlanSummary {
  const checked = checkPlanJson(Buffer.from(text));
  assert.ok(checked.ok, problemOf(checked));
  return checked.summary;
}

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
    const problem = (body: string | Buffer) => problemOf(checkPlanJson(Buffer.isBuffer(body) ? body : Buffer.from(body)));
    assert.match(problem('not json')!, /not valid JSON/);
    assert.match(problem('[]')!, /JSON object/);
    assert.match(problem('{"resource_changes":[]}')!, /format_version/);
    assert.match(problem('{"format_version":1.2}')!, /format_version/);
    assert.match(problem(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))!, /UTF-8/);
    assert.match(problem('')!, /not valid JSON/);
    assert.match(problem('{"format_version":"1.2"} {}')!, /not valid JSON/);
    assert.match(problem('{"format_version":"1.2"')!, /not valid JSON/);
    assert.match(problem('\ufeff{"format_version":"1.2"}')!, /not valid JSON/);
    assert.equal(problem('{"format_version":"1.2"}'), undefined);
    assert.equal(problem(' {"format_version":"1.2"}\n'), undefined);
  });

  it('the last of duplicate keys counts, as JSON.parse has it', () => {
    const body = (text: string) => checkPlanJson(Buffer.from(text));
    const summary = (text: string) => {
      const checked = body(text);
      assert.ok(checked.ok, problemOf(checked));
      return checked.summary;
    };
    assert.equal(problemOf(body('{"format_version":"1.2","format_version":1}')), problemOf(body('{"format_version":1}')));
    assert.equal(summary('{"format_version":1,"format_version":"1.2"}').hasChanges, false);
    const create = '{"address":"a","change":{"actions":["create"]}}';
    assert.equal(summary(`{"format_version":"1","resource_changes":[${create}],"resource_changes":[]}`).resourceAdditions, 0);
    assert.equal(summary(`{"format_version":"1","resource_changes":[],"resource_changes":[${create},${create}]}`).resourceAdditions, 2);
    assert.equal(summary('{"format_version":"1","resource_changes":[{"change":{"actions":["create"]},"change":5}]}').resourceAdditions, 0);
    assert.deepEqual(
      summary('{"format_version":"1","resource_changes":[{"change":{"actions":["delete"],"actions":["update"],"importing":{},"importing":null}}]}'),
      { hasChanges: true, resourceAdditions: 0, resourceChanges: 1, resourceDestructions: 0, resourceImports: 0 },
    );
  });

  it('a move is a previous_address that differs from the address, however the strings are written', () => {
    const moved = (entry: string) => summarizePlanText(`{"format_version":"1","resource_changes":[${entry}]}`).hasChanges;
    assert.equal(moved('{"address":"a.b","previous_address":"a.b","change":{"actions":["no-op"]}}'), false);
    assert.equal(moved('{"address":"a.b","previous_address":"a\\u002eb","change":{"actions":["no-op"]}}'), false);
    assert.equal(moved('{"address":"a.b","previous_address":"a.c","change":{"actions":["no-op"]}}'), true);
    assert.equal(moved('{"previous_address":"a.b","change":{"actions":["no-op"]}}'), true);
    assert.equal(moved('{"address":"a.b","previous_address":null,"change":{"actions":["no-op"]}}'), false);
    assert.equal(moved('{"address":"a.b","previous_address":"a.c"}'), false, 'an entry without a change object counts nothing');
  });
});
