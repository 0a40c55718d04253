/**
 * The ceiling of the engine's Wasm path (issues 29, 39), run alone because it needs a package Teamstage does not
 * depend on (the engine uses OPA's Wasm ABI itself: src/policies/opa-wasm-abi.ts says why not this SDK):
 * `OPA_WASM_DIR=<dir with @open-policy-agent/opa-wasm installed> node --import tsx bench/policy-wasm-comparison.ts`
 * (OPA at TEAMSTAGE_OPA_PATH, scripts/build-opa.sh's cache or the PATH). The 10-policy set of the `policy
 * evaluation` row of `npm run bench` (policy-set.ts), compiled once with `opa build -t wasm` and evaluated
 * in-process on each real plan fixture with no worker thread, bound or answer check: what the engine's worker,
 * bounds and exact answers cost on top (BENCHMARKS.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { percentiles } from './measure.js';
import { benchOpa } from './policy-server.js';
import { planFixtures, policyInput, TEN_POLICIES } from './policy-set.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const dir = process.env.OPA_WASM_DIR;
if (!dir) throw new Error('set OPA_WASM_DIR to a directory with @open-policy-agent/opa-wasm installed');
const opa = benchOpa('the Wasm comparison').path;
const { loadPolicy } = createRequire(path.join(dir, 'package.json'))('@open-policy-agent/opa-wasm') as { loadPolicy: (wasm: Buffer) => Promise<any> };

const scratch = mkdtempSync(path.join(tmpdir(), 'policy-wasm-'));
const source = path.join(scratch, 'src');
mkdirSync(source);
TEN_POLICIES.forEach((policy, index) => writeFileSync(path.join(source, `p${index}.rego`), policy.rego));
const entrypoints = TEN_POLICIES.map((policy) => policy.query.slice('data.'.length).replaceAll('.', '/'));

const built = performance.now();
const bundle = path.join(scratch, 'bundle.tar.gz');
execFileSync(opa, ['build', '-t', 'wasm', ...entrypoints.flatMap((entrypoint) => ['-e', entrypoint]), '-o', bundle, source]);
execFileSync('tar', ['-xzf', bundle, '-C', scratch, '/policy.wasm']);
const buildMs = performance.now() - built;

const policy = await loadPolicy(readFileSync(path.join(scratch, 'policy.wasm')));
const inputs = planFixtures().map((fixture) => policyInput(fixture.planJson));
const times: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const text of inputs) {
    const started = performance.now();
    const input = JSON.parse(text);
    for (const entrypoint of entrypoints) policy.evaluate(input, entrypoint);
    times.push(performance.now() - started);
  }
}
const { p50, p99 } = percentiles(times);
console.log(
  `wasm in-process: compile of the set ${buildMs.toFixed(0)} ms once; ${times.length} set evaluations p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
    `process RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB (the Wasm memory lives inside the server)`,
);
