import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { timestampKey } from '../src/core/status-timestamps.js';
import { parseEvalOutput } from '../src/policies/opa-engine.js';
import { OPEN_POLICY_EVALUATION_STATUSES } from '../src/taskstages/stage-status.js';
import { bootstrapOrganization, HttpClient } from '../test/helpers/http-client.js';
import { enginesRunning, opaProcesses } from '../test/helpers/policy-isolation.js';
import { globalPolicySet, plannedRun, reportPlan, strictCall, type Call } from '../test/helpers/policy-runs.js';
import { processCpuMs, reapedChildrenCpuMs } from '../test/helpers/process-cpu.js';
import { waitUntil } from '../test/helpers/wait-until.js';
import { median, percentiles } from './measure.js';
import { benchOpa, startPolicyServer } from './policy-server.js';
import { planFixtures, policyInput, TEN_POLICIES } from './policy-set.js';
import { fmt } from './row-text.js';
import { extraScenarios, type ScenarioContext } from './scenarios.js';

export const POLICY_EVALUATION = 'policy evaluation';
/** The server's defaults: TEAMSTAGE_POLICY_CONCURRENCY, TEAMSTAGE_POLICY_TIMEOUT, TEAMSTAGE_POLICY_MEMORY_MB. */
const SLOTS = 2;
const TIMEOUT_SECONDS = 10;
const MEMORY_BYTES = 512 * 1024 * 1024;
const run = promisify(execFile);

/** One side of one round: every fixture's set evaluated once, `SLOTS` at a time. */
interface Phase {
  /** Per set, ms. */
  times: number[];
  wallMs: number;
  /** CPU of the OPA processes, and of the server itself (Teamstage only), per set in ms. */
  opaCpuPerSet: number;
  serverCpuPerSet: number;
  /** Share of the sampler's looks that found every slot busy (an OPA process, or a thread evaluating Wasm). */
  slotsFull: number;
  /** Largest VmHWM of one OPA process seen, in KiB. */
  peakOpaKb: number;
}

/** Whether each policy's deny list is empty, in TEN_POLICIES order: what both sides must agree on. */
type Verdicts = boolean[];

/**
 * Runs `evaluate` on every fixture, `SLOTS` streams at once (the node's policy slots), while a sampler looks at the
 * OPA children and Wasm threads of `parentPid` every 20 ms: how often all slots were busy, and the largest
 * resident memory of one OPA process.
 */
async function phase(
  count: number,
  parentPid: number,
  cpu: { opa: () => number; server: () => number },
  evaluate: (index: number) => Promise<number>,
): Promise<Phase> {
  let looks = 0;
  let full = 0;
  let peakOpaKb = 0;
  const sampler = setInterval(() => {
    looks += 1;
    if (enginesRunning(parentPid) >= SLOTS) full += 1;
    for (const pid of opaProcesses(parentPid)) {
      try {
        peakOpaKb = Math.max(peakOpaKb, Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0));
      } catch {
        // it ended between the two reads
      }
    }
  }, 20);
  const before = { opa: cpu.opa(), server: cpu.server(), wall: performance.now() };
  const times: number[] = [];
  let next = 0;
  const stream = async () => {
    while (next < count) times.push(await evaluate(next++));
  };
  try {
    await Promise.all(Array.from({ length: SLOTS }, stream));
  } finally {
    clearInterval(sampler);
  }
  return {
    times,
    wallMs: performance.now() - before.wall,
    opaCpuPerSet: (cpu.opa() - before.opa) / count,
    serverCpuPerSet: (cpu.server() - before.server) / count,
    slotsFull: looks === 0 ? 0 : full / looks,
    peakOpaKb,
  };
}

/**
 * The physical limit: the engine's own `opa eval` invocations (same arguments, timeout and environment) on a
 * prepared input, one policy after another as an evaluation does, driven from here: no server, no job, no
 * `sh`/`ulimit`/nice wrapper, no scratch files, no database.
 */
function bareEngine(opaPath: string, scratch: string) {
  const policyFiles = TEN_POLICIES.map((policy, index) => {
    const file = path.join(scratch, `policy-${index}.rego`);
    fs.writeFileSync(file, policy.rego);
    return file;
  });
  const env = { PATH: process.env.PATH ?? '', GOMEMLIMIT: `${Math.floor(MEMORY_BYTES / 2)}B`, GOMAXPROCS: '1' };
  return async (inputFile: string): Promise<{ ms: number; verdicts: Verdicts }> => {
    const started = performance.now();
    const verdicts: Verdicts = [];
    for (const [index, policy] of TEN_POLICIES.entries()) {
      const args = ['eval', '--format', 'json', '--timeout', `${TIMEOUT_SECONDS * 1000}ms`, '--input', inputFile, '--data', policyFiles[index]!, '--', policy.query];
      const { stdout, stderr } = await run(opaPath, args, { env, maxBuffer: 4 << 20 });
      const answer = parseEvalOutput(stdout, stderr);
      if (!answer.ok || !answer.defined || !Array.isArray(answer.value)) throw new Error(`${policy.name} on ${inputFile}: ${JSON.stringify(answer)}`);
      verdicts.push(answer.value.length === 0);
    }
    return { ms: performance.now() - started, verdicts };
  };
}

/** Teamstage: the run's plan reported, the evaluation job's time from its status-timestamps (running → final). */
async function judgedRun(call: Call, token: string, run: { runId: string; planId: string }): Promise<{ ms: number; verdicts: Verdicts }> {
  await reportPlan(call, token, run.planId);
  const [stage] = (await call(token, 'GET', `/runs/${run.runId}/task-stages`, undefined, 200)).data;
  let evaluation: any;
  // 50 ms between looks: the polls' CPU is counted as the server's.
  await waitUntil(async () => {
    [evaluation] = (await call(token, 'GET', `/task-stages/${stage.id}/policy-evaluations`, undefined, 200)).data;
    return evaluation !== undefined && !OPEN_POLICY_EVALUATION_STATUSES.includes(evaluation.attributes.status);
  }, 120_000, `the policy evaluation of run ${run.runId} did not finish`, 50);
  const sets = (await call(token, 'GET', `/policy-evaluations/${evaluation.id}/policy-set-outcomes`, undefined, 200)).data as any[];
  const stamps = evaluation.attributes['status-timestamps'] as Record<string, string>;
  const final = stamps[timestampKey(evaluation.attributes.status)];
  if (!stamps['running-at'] || !final) throw new Error(`evaluation ${evaluation.id}: ${JSON.stringify(evaluation.attributes)}`);
  const byName = new Map<string, string>(sets.flatMap((set) => set.attributes.outcomes.map((o: { policy_name: string; status: string }) => [o.policy_name, o.status])));
  return { ms: Date.parse(final) - Date.parse(stamps['running-at']), verdicts: TEN_POLICIES.map((policy) => byName.get(policy.name) === 'passed') };
}

/**
 * Issue 29's evaluation row, with issue 39's target: the 10-policy set over every real plan fixture through a
 * real server (a run per fixture, its post-plan stage's evaluation job: each policy compiled to Wasm once, on its
 * first use, then evaluated in a worker thread), against the same policies as `opa eval` processes driven
 * directly, the two alternating round by round. SQLite only: the engine runs outside the database.
 */
async function policyEvaluation(context: ScenarioContext): Promise<void> {
  if (context.dialect !== 'sqlite') return;
  const opa = benchOpa(POLICY_EVALUATION);
  const fixtures = planFixtures();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-bench-opa-'));
  const { server, siteToken, close } = await startPolicyServer(opa.path, { timeoutSeconds: TIMEOUT_SECONDS, slots: SLOTS });
  const http = new HttpClient(server.url, 4);
  try {
    const inputs = fixtures.map((fixture) => {
      const file = path.join(scratch, `${fixture.name}.json`);
      fs.writeFileSync(file, policyInput(fixture.planJson));
      return file;
    });
    const bare = bareEngine(opa.path, scratch);
    const call = strictCall(http);
    const owner = await bootstrapOrganization(http, siteToken, `policies${randomBytes(3).toString('hex')}`);
    await globalPolicySet(call, owner, TEN_POLICIES.map((policy) => ({ ...policy, level: 'advisory' as const })));
    // Every run the rounds need, planned before anything is measured.
    const runs: Array<Array<{ runId: string; planId: string }>> = [];
    for (let round = 0; round < context.settings.rounds; round++) {
      runs.push(await Promise.all(fixtures.map((fixture) => plannedRun(call, server.url, owner, `r${round}-${fixture.name}`, fixture.planJson))));
    }

    const expected: Verdicts[] = [];
    const mismatches: string[] = [];
    const sides = { teamstage: [] as Phase[], limit: [] as Phase[] };
    for (let round = 0; round < context.settings.rounds; round++) {
      sides.limit.push(await phase(fixtures.length, process.pid, { opa: () => reapedChildrenCpuMs(process.pid), server: () => 0 }, async (index) => {
        const { ms, verdicts } = await bare(inputs[index]!);
        expected[index] = verdicts;
        return ms;
      }));
      sides.teamstage.push(await phase(fixtures.length, server.pid, { opa: () => reapedChildrenCpuMs(server.pid), server: () => processCpuMs(server.pid) }, async (index) => {
        const { ms, verdicts } = await judgedRun(call, owner.ownerToken, runs[round]![index]!);
        if (verdicts.join() !== expected[index]!.join()) mismatches.push(fixtures[index]!.name);
        return ms;
      }));
    }

    const summary = (phases: Phase[]) => ({
      ...percentiles(phases.flatMap((p) => p.times)),
      sets: phases.reduce((sum, p) => sum + p.times.length, 0),
      perSecond: median(phases.map((p) => (p.times.length * 1000) / p.wallMs)),
      opaCpu: median(phases.map((p) => p.opaCpuPerSet)),
      serverCpu: median(phases.map((p) => p.serverCpuPerSet)),
      cores: median(phases.map((p) => (p.opaCpuPerSet * p.times.length) / p.wallMs)),
      slotsFull: median(phases.map((p) => p.slotsFull)),
      peakMiB: Math.max(...phases.map((p) => p.peakOpaKb)) / 1024,
    });
    const ts = summary(sides.teamstage);
    const limit = summary(sides.limit);
    const failed = expected.reduce((sum, verdicts) => sum + verdicts.filter((passed) => !passed).length, 0);
    context.rows.push({
      scenario: `${POLICY_EVALUATION}: one 10-policy set (examples/policies + 7 variants) over each of the ${fixtures.length} real plan fixtures, ${SLOTS} evaluations at a time (TEAMSTAGE_POLICY_CONCURRENCY=${SLOTS})`,
      dialect: context.dialect,
      measured:
        `p50 ${fmt(ts.p50)} ms, p99 ${fmt(ts.p99)} ms per set (${fmt(ts.sets)} sets, the evaluation job's running → final status-timestamps); ${fmt(ts.perSecond, 2)} sets/s; ` +
        `CPU per set: OPA processes ${fmt(ts.opaCpu)} ms (the set's one compile to Wasm per node, over every set) + server ${fmt(ts.serverCpu)} ms (its job, the Wasm evaluations, and the bench's status polls); ` +
        `slots full ${fmt(ts.slotsFull * 100)}% of the window; answers equal to the limit's: ${mismatches.length === 0 ? `all (${failed} of ${expected.length * TEN_POLICIES.length} deny)` : `NO (${[...new Set(mismatches)].join(', ')})`}`,
      baseline:
        `the same 10 \`opa eval\` per set driven directly, no server (no job, sh/ulimit wrapper, scratch files or database), ${SLOTS} at a time: p50 ${fmt(limit.p50)} ms, p99 ${fmt(limit.p99)} ms; ` +
        `${fmt(limit.perSecond, 2)} sets/s; CPU per set: OPA ${fmt(limit.opaCpu)} ms (${fmt(limit.cores, 2)} cores busy of ${SLOTS}); slots full ${fmt(limit.slotsFull * 100)}%; peak RSS of one OPA process ${fmt(limit.peakMiB, 1)} MiB`,
      ratio: `p50 ${fmt(ts.p50 / limit.p50, 2)}×; throughput ${fmt(ts.perSecond / limit.perSecond, 2)}×; CPU per set ${fmt((ts.opaCpu + ts.serverCpu) / Math.max(limit.opaCpu, 0.001), 2)}×`,
      target: 'p50 ≤ 25 ms per set (issue 39); the limit saturated (its slots full ≥ 80%); every answer equal to bare OPA\'s',
      met: ts.p50 <= 25 && limit.slotsFull >= 0.8 && mismatches.length === 0,
    });
  } finally {
    await http.close();
    await close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

extraScenarios.push({ name: POLICY_EVALUATION, run: policyEvaluation });
