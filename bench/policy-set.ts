/**
 * Issue 29's benchmark set, shared by the policy evaluation row (policy-evaluation-scenario.ts) and the Wasm
 * comparison (policy-wasm-comparison.ts): ten policies, the three of examples/policies and seven variants of them
 * in packages of their own (so each compiles alone), judged against every real plan fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const EXAMPLES = ['no_public_ingress', 'required_tags', 'no_destroy_protected'];

export interface BenchPolicy {
  name: string;
  rego: string;
  /** `data.<package>.deny`: an array, empty when the plan passes. */
  query: string;
}

export const TEN_POLICIES: BenchPolicy[] = Array.from({ length: 10 }, (_, i) => {
  const example = EXAMPLES[i % EXAMPLES.length]!;
  const pkg = `terraform.policies.${example}${i < EXAMPLES.length ? '' : `_v${i}`}`;
  const rego = fs.readFileSync(path.join(ROOT, 'examples/policies', `${example}.rego`), 'utf8').replace(`package terraform.policies.${example}`, `package ${pkg}`);
  return { name: pkg.slice('terraform.policies.'.length), rego, query: `data.${pkg}.deny` };
});

/** The real plan fixtures (test/fixtures/terraform-plans/<name>/plan.json): name and plan JSON text. */
export function planFixtures(): Array<{ name: string; planJson: string }> {
  return fs
    .readdirSync(FIXTURES)
    .filter((name) => fs.existsSync(path.join(FIXTURES, name, 'plan.json')))
    .sort()
    .map((name) => ({ name, planJson: fs.readFileSync(path.join(FIXTURES, name, 'plan.json'), 'utf8') }));
}

/** OPA's input for a plan as Teamstage writes it (`{"run":…,"plan":…}`), with the one run fact the set reads. */
export const policyInput = (planJson: string) => `{"run":{"is_destroy":false},"plan":${planJson}}`;
