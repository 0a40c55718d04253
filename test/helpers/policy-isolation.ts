/**
 * Issue 29's isolation figure, shared by the system test and the bench row: how much crafted policies that one
 * organization evaluates (an unbounded range, an 8 MB answer, a 10⁵×10⁵ comprehension) delay another
 * organization's requests on the same node. The victim sends GET /teams/:id one at a time (10 ms apart) alone,
 * then while the attacker's runs are evaluated, then alone again; a sampler counts the node's OPA processes
 * the whole time, so the figure says whether the engine's slots (TEAMSTAGE_POLICY_CONCURRENCY) were full.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrapOrganization, HttpClient } from './http-client.js';
import { globalPolicySet, JUDGED_RUN_STATUSES, plannedRun, policyEvaluationOf, reportPlan, strictCall } from './policy-runs.js';
import { waitUntil } from './wait-until.js';

const PLAN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans/120_basic/plan.json');

/** Each gives an array if it ever finishes; none does within the bounds. */
export const CRAFTED_POLICIES: Record<string, string> = {
  unbounded: 'package crafted.unbounded\nimport rego.v1\ndeny := [x | some x in numbers.range(1, 1000000000000); x < 0]\n',
  'huge-answer': 'package crafted.huge_answer\nimport rego.v1\ndeny := [x | some x in numbers.range(1, 1000000)]\n',
  quadratic: 'package crafted.quadratic\nimport rego.v1\ndeny := [s | some x in numbers.range(1, 100000); some y in numbers.range(1, 100000); s := sprintf("%v-%v", [x, y])]\n',
};
/** Rego refuses recursion when it compiles: such a policy never reaches an evaluation. */
export const RECURSIVE_POLICY = 'package crafted.recursive\nimport rego.v1\nf(x) := y if { y := f(x + 1) }\ndeny := [f(1)]\n';

export interface IsolationFigures {
  /** Latencies (ms) of the victim's requests with no evaluation running: before and after. */
  alone: number[];
  /** While the attacker's evaluations ran. */
  during: number[];
  /** Share of the sampler's looks, during, that found every OPA slot busy. */
  saturated: number;
  looks: number;
  /** What the upload of a recursive policy answered (status and detail). */
  recursion: string;
  /** Each crafted policy's outcome status with its reason, as the API reports them. */
  outcomes: Array<{ policy: string; status: string; reason: string }>;
}

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

/** The OPA processes a process runs now: its children named `opa` (or `sh` until it execs `opa`). */
export function opaProcesses(parentPid: number): number[] {
  try {
    const children = fs.readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.filter((pid) => {
      try {
        return ['opa', 'sh'].includes(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

/** A process's threads evaluating a policy in Wasm now: named `opa-wasm` while they do (src/policies/opa-wasm.worker.ts). */
export function wasmThreads(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map(Number).filter((tid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'opa-wasm';
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

/** The policy slots busy in a process: OPA processes (compiling, or answering what Wasm cannot) and Wasm evaluations. */
export const enginesRunning = (pid: number) => opaProcesses(pid).length + wasmThreads(pid).length;

export async function measurePolicyIsolation(options: {
  url: string;
  serverPid: number;
  siteToken: string;
  /** The node's TEAMSTAGE_POLICY_CONCURRENCY. */
  slots: number;
  /** Attacker runs, each on its own workspace (one evaluation of the three crafted policies each). */
  runs: number;
  /** How long each window lasts (alone before, during, alone after): runs × 3 × the policy timeout / slots should exceed it. */
  windowMs: number;
  suffix: string;
}): Promise<IsolationFigures> {
  const http = new HttpClient(options.url, 4);
  try {
    const victim = await bootstrapOrganization(http, options.siteToken, `victim${options.suffix}`);
    const attacker = await bootstrapOrganization(http, options.siteToken, `attacker${options.suffix}`);
    const call = strictCall(http);
    const team = await call(victim.ownerToken, 'POST', `/organizations/${victim.organization}/teams`, { data: { type: 'teams', attributes: { name: 'platform' } } }, 200);
    const victimClient = new HttpClient(options.url, 1);
    const measure = async (until: () => boolean) => {
      const latencies: number[] = [];
      while (!until()) {
        const started = performance.now();
        const response = await victimClient.request('GET', `/teams/${team.data.id}`, victim.ownerToken);
        latencies.push(performance.now() - started);
        assert.equal(response.status, 200, response.text);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return latencies;
    };

    // The attacker: the crafted policies in one global set, so they judge every run of the organization.
    const owner = { ownerToken: attacker.ownerToken, organization: attacker.organization };
    await globalPolicySet(call, owner, Object.entries(CRAFTED_POLICIES).map(([name, rego]) => ({ name, rego, query: `data.crafted.${name.replace('-', '_')}.deny`, level: 'mandatory' as const })));
    const recursive = await call(attacker.ownerToken, 'POST', `/organizations/${attacker.organization}/policies`, {
      data: { type: 'policies', attributes: { name: 'recursive', kind: 'opa', query: 'data.crafted.recursive.deny', 'enforcement-level': 'mandatory' } },
    }, 201);
    const refused = await http.request('PUT', `/policies/${recursive.data.id}/upload`, attacker.ownerToken, RECURSIVE_POLICY);
    const recursion = `${refused.status} ${refused.body?.errors?.[0]?.detail ?? refused.text}`;
    const plans: Array<{ runId: string; planId: string }> = [];
    for (let index = 0; index < options.runs; index++) plans.push(await plannedRun(call, options.url, owner, `target-${index}`, fs.readFileSync(PLAN, 'utf8')));
    const status = async (runId: string) => (await call(attacker.ownerToken, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status as string;

    let end = Date.now() + options.windowMs;
    const before = await measure(() => Date.now() > end);
    // Every plan is reported at once: the node's evaluation jobs and its OPA slots fill up together.
    for (const { planId } of plans) await reportPlan(call, attacker.ownerToken, planId);
    await waitUntil(async () => enginesRunning(options.serverPid) >= options.slots, 30_000, 'the evaluations did not start');
    let looks = 0;
    let full = 0;
    const sampler = setInterval(() => {
      looks += 1;
      if (enginesRunning(options.serverPid) >= options.slots) full += 1;
    }, 20);
    end = Date.now() + options.windowMs;
    const during = await measure(() => Date.now() > end);
    clearInterval(sampler);
    for (const { runId } of plans) await waitUntil(async () => JUDGED_RUN_STATUSES.includes(await status(runId)), 180_000, `run ${runId} was not judged`);
    end = Date.now() + options.windowMs;
    const after = await measure(() => Date.now() > end);
    await victimClient.close();

    const outcomes: IsolationFigures['outcomes'] = [];
    for (const { runId } of plans) {
      for (const set of (await policyEvaluationOf(call, attacker.ownerToken, runId)).sets) {
        for (const outcome of set.attributes.outcomes) {
          outcomes.push({ policy: outcome.policy_name, status: outcome.status, reason: (outcome.output ?? []).map((line: { print: string }) => line.print).join('; ').slice(0, 200) });
        }
      }
    }
    return { alone: [...before, ...after], during, saturated: looks === 0 ? 0 : full / looks, looks, recursion, outcomes };
  } finally {
    await http.close();
  }
}
