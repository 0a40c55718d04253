/**
 * Policy evaluation (issue 29), one row of BENCHMARKS.md, run alone: `node --import tsx bench/policy-evaluation.ts`
 * (OPA at TEAMSTAGE_OPA_PATH or on the PATH). Measures:
 *  1. the chosen engine (an `opa eval` process per policy, src/policies/opa-engine.ts): one evaluation of a
 *     10-policy set (examples/policies and seven variants) over each real plan fixture, p50/p99, and the
 *     largest resident memory of one OPA process (/proc VmHWM, sampled);
 *  2. the alternative: the same set compiled once with `opa build -t wasm` and evaluated in-process by
 *     @open-policy-agent/opa-wasm (OPA_WASM_DIR: a directory where that package is installed; skipped without);
 *  3. isolation: the latency of another tenant's requests (GET /api/v2/organizations/:org over real HTTP)
 *     while crafted policies (unbounded range, huge output) are evaluated, against the same requests alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpaEngine, findOpa } from '../src/policies/opa-engine.js';
import { createTestApp } from '../test/helpers/test-app.js';
import { createOrganization } from '../test/helpers/fixtures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const found = findOpa(process.env.TEAMSTAGE_OPA_PATH);
if (!found.path) throw new Error('no opa: set TEAMSTAGE_OPA_PATH');
const opa = found.path;
const scratch = mkdtempSync(path.join(tmpdir(), 'policy-bench-'));
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

// Ten policies: the three examples and seven variants (own packages, so each compiles alone).
const examples = ['no_public_ingress', 'required_tags', 'no_destroy_protected'];
const policies = Array.from({ length: 10 }, (_, i) => {
  const name = examples[i % 3]!;
  const pkg = `terraform.policies.${name}${i < 3 ? '' : `_v${i}`}`;
  const rego = readFileSync(path.join(ROOT, 'examples/policies', `${name}.rego`), 'utf8').replace(`package terraform.policies.${name}`, `package ${pkg}`);
  return { rego, query: `data.${pkg}.deny`, pkg };
});
const fixtures = readdirSync(FIXTURES).filter((name) => existsSync(path.join(FIXTURES, name, 'plan.json')));
const inputs = fixtures.map((name) => {
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, `{"run":{"is_destroy":false},"plan":${readFileSync(path.join(FIXTURES, name, 'plan.json'), 'utf8')}}`);
  return file;
});

async function processEngine(): Promise<void> {
  const engine = new OpaEngine(opa, found.path ? (found as { version: string }).version : '', { timeoutMs: 10_000, memoryBytes: 512 << 20, maxOutputBytes: 4 << 20, concurrency: 2 });
  const times: number[] = [];
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      for (const pid of execFileSync('pgrep', ['-x', 'opa'], { encoding: 'utf8' }).trim().split('\n')) {
        const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        if (hwm) peakKb = Math.max(peakKb, Number(hwm));
      }
    } catch {
      // no opa running at this instant
    }
  }, 5);
  for (let round = 0; round < ROUNDS; round++) {
    for (const input of inputs) {
      const started = performance.now();
      // As the evaluation job does: every policy of the set, through the engine's two slots.
      await Promise.all(policies.map((p) => engine.evaluate({ rego: p.rego, regoVersion: 'v1', query: p.query }, input)));
      times.push(performance.now() - started);
    }
  }
  clearInterval(sampler);
  console.log(`process per policy: ${times.length} set evaluations (10 policies, ${fixtures.length} fixtures) p50 ${pct(times, 50).toFixed(0)} ms, p99 ${pct(times, 99).toFixed(0)} ms; peak RSS of one opa ${(peakKb / 1024).toFixed(0)} MiB (sampled)`);
}

async function wasmEngine(): Promise<void> {
  const dir = process.env.OPA_WASM_DIR;
  if (!dir) return console.log('wasm: skipped (set OPA_WASM_DIR to a directory with @open-policy-agent/opa-wasm installed)');
  const { loadPolicy } = createRequire(path.join(dir, 'package.json'))('@open-policy-agent/opa-wasm') as { loadPolicy: (wasm: Buffer) => Promise<any> };
  const source = path.join(scratch, 'wasm-src');
  execFileSync('mkdir', ['-p', source]);
  policies.forEach((p, i) => writeFileSync(path.join(source, `p${i}.rego`), p.rego));
  const built = performance.now();
  const bundle = path.join(scratch, 'bundle.tar.gz');
  execFileSync(opa, ['build', '-t', 'wasm', ...policies.flatMap((p) => ['-e', p.query.slice('data.'.length).replaceAll('.', '/')]), '-o', bundle, source]);
  execFileSync('tar', ['-xzf', bundle, '-C', scratch, '/policy.wasm']);
  const buildMs = performance.now() - built;
  const policy = await loadPolicy(readFileSync(path.join(scratch, 'policy.wasm')));
  const times: number[] = [];
  const parsed = inputs.map((file) => readFileSync(file, 'utf8'));
  for (let round = 0; round < ROUNDS; round++) {
    for (const text of parsed) {
      const started = performance.now();
      const input = JSON.parse(text);
      for (const p of policies) policy.evaluate(input, p.query.slice('data.'.length).replaceAll('.', '/'));
      times.push(performance.now() - started);
    }
  }
  const heap = process.memoryUsage();
  console.log(`wasm in-process: compile of the set ${buildMs.toFixed(0)} ms once; ${times.length} set evaluations p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms; process RSS ${(heap.rss / 1048576).toFixed(0)} MiB (wasm memory inside the server)`);
}

async function isolation(): Promise<void> {
  const ctx = await createTestApp('sqlite', { TEAMSTAGE_OPA_PATH: opa });
  const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const org = await createOrganization(ctx);
  const token = org.owner.token;
  const measure = async (ms: number) => {
    const latencies: number[] = [];
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const started = performance.now();
      const response = await fetch(`${address}/api/v2/organizations/${org.name}`, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return latencies;
  };
  const alone = await measure(4000);
  const engine = new OpaEngine(opa, '', { timeoutMs: 3000, memoryBytes: 512 << 20, maxOutputBytes: 4 << 20, concurrency: 2 });
  const crafted = [
    'package c\nimport rego.v1\nn := count([x | some x in numbers.range(1, 1000000000)])\n',
    'package c\nimport rego.v1\nn := [x | some x in numbers.range(1, 5000000)]\n',
    'package c\nimport rego.v1\nn := count([sprintf("%v-%v", [x, y]) | some x in numbers.range(1, 100000); some y in numbers.range(1, 100000)])\n',
  ];
  let stop = false;
  const outcomes: string[] = [];
  const attackers = crafted.map(async (rego) => {
    while (!stop) {
      const answer = await engine.evaluate({ rego, regoVersion: 'v1', query: 'data.c.n' }, inputs[0]!);
      if (outcomes.length < 6) outcomes.push(answer.ok ? 'ok' : answer.reason);
    }
  });
  const during = await measure(8000);
  stop = true;
  await Promise.all(attackers);
  await ctx.close();
  console.log(`isolation: another tenant's GET alone p50 ${pct(alone, 50).toFixed(1)} ms p99 ${pct(alone, 99).toFixed(1)} ms max ${Math.max(...alone).toFixed(1)} ms; during crafted evaluations p50 ${pct(during, 50).toFixed(1)} ms p99 ${pct(during, 99).toFixed(1)} ms max ${Math.max(...during).toFixed(1)} ms (added p99 ${(pct(during, 99) - pct(alone, 99)).toFixed(1)} ms)`);
  console.log(`  crafted outcomes: ${[...new Set(outcomes)].join(' | ')}`);
}

await processEngine();
await wasmEngine();
await isolation();
process.exit(0);
