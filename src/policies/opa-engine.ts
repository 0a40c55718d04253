import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capabilitiesFileFor, type CapabilitiesFile } from './opa-capabilities.js';
import { findOpa } from './opa-probe.js';
import { FairSlots } from './fair-slots.js';
import { checkRefusal, evalMessage, parseEvalOutput, type ChildOutcome } from './opa-messages.js';
import { WasmCompiler } from './opa-wasm-compiler.js';
import { WasmSlots, type SlotOutcome } from './opa-wasm-slots.js';

export { findOpa } from './opa-probe.js';
export { evalMessage, parseEvalOutput, unavailableBuiltinReason } from './opa-messages.js';
export type { CheckProblem, CheckResult, QueryAnswer, RegoVersion } from './opa-types.js';
import type { CheckResult, QueryAnswer, RegoVersion } from './opa-types.js';

/**
 * The policy engine is the real OPA (issues 29, 39). A policy is compiled once per node by the OPA binary to
 * WebAssembly (`opa build -t wasm`, opa-wasm-compiler.ts, kept by content digest) and evaluated in a worker
 * thread (opa-wasm-slots.ts): about a millisecond where a process per policy took 20 ms or more, so that a
 * 10-policy set adds nothing a person notices (issue 39; BENCHMARKS.md has both measured). Every bound holds
 * there as it did for a process: the time limit ends the worker thread outright, the Wasm memory's maximum is
 * TEAMSTAGE_POLICY_MEMORY_MB, the answer is refused past 4 MiB, the capabilities are those of every OPA call,
 * and the slots are the same fair slots (fair-slots.ts); nothing runs on the server's event loop.
 *
 * Whatever Wasm cannot answer exactly as OPA does is answered by OPA itself, run as a child process as before
 * (`opa eval` under `ulimit -d`, niced, killed at the time limit): a policy that calls print(), a query that is
 * not a plain rule, a policy `opa build` refuses (a removed built-in: OPA's own refusal), a call of a built-in
 * OPA's Wasm leaves to the host (`sprintf`, …: a policy's messages; opa-wasm-abi.ts says why none is imitated
 * here), or an abort. So every answer is OPA's. Compiling, `opa check` at upload and these evaluations are
 * the node's OPA processes, in the same slots.
 *
 * OPA 1.x reads Rego v1; the older syntax that HCP's examples and go-tfe's tests use (`rule[x] { … }`) is
 * accepted as Rego v0 (`--v0-compatible`): `check` finds which one a text is, and evaluation uses it.
 */

export interface EngineLimits {
  /** TEAMSTAGE_POLICY_TIMEOUT: an evaluation running longer is killed and errored. */
  timeoutMs: number;
  /** TEAMSTAGE_POLICY_MEMORY_MB: the address space an evaluation may take; over it OPA dies and the evaluation errors. */
  memoryBytes: number;
  /** The largest answer read from OPA; beyond it the evaluation is killed and errored (a policy with a huge output). */
  maxOutputBytes: number;
  /** OPA processes at once; more wait their turn (two cores must still serve requests). */
  concurrency: number;
  /** Of those, at most this many for one organization (TEAMSTAGE_POLICY_PER_ORGANIZATION). */
  perOrganization: number;
  /** False: every evaluation is an `opa eval` process (tests of that path; the server always compiles to Wasm). */
  wasm?: boolean;
}

const timeoutReason = (limits: EngineLimits) => `the evaluation took longer than ${limits.timeoutMs} ms and was stopped`;
const outputReason = (limits: EngineLimits) => `the evaluation answered more than ${limits.maxOutputBytes} bytes and was stopped`;

/**
 * The memory a policy may take in Wasm before OPA's process answers instead: OPA's Wasm allocator keeps every
 * intermediate value of an evaluation where OPA itself collects them, so a policy that loops over pairs of a
 * plan's values runs in a few MiB in OPA and took more than 512 MiB (and 50 s on a loaded machine) in Wasm. The
 * budget is room for the input several times over plus a base; never more than the operator's bound, which the
 * process then enforces (`ulimit -d`) with the time the Wasm attempt left.
 */
export function wasmMemoryBytes(inputBytes: number, operatorBound: number): number {
  return Math.min(operatorBound, 64 * 1024 * 1024 + 8 * inputBytes);
}

/** A worker's outcome as the policy's answer; undefined when OPA itself must answer (opa-wasm-abi.ts). */
function wasmAnswer(outcome: SlotOutcome, limits: EngineLimits): QueryAnswer | undefined {
  switch (outcome.kind) {
    case 'timeout':
      return { ok: false, reason: timeoutReason(limits) };
    case 'memory':
      // Past the Wasm budget (wasmMemoryBytes): OPA's process answers, under the operator's bound.
      return undefined;
    case 'output':
      return { ok: false, reason: outputReason(limits) };
    case 'answer': {
      // The result set: `[]` when the rule is undefined, `[{"result": …}]` when it is defined.
      const [first] = JSON.parse(outcome.json) as Array<{ result: unknown }>;
      return first ? { ok: true, defined: true, value: first.result, prints: [] } : { ok: true, defined: false, prints: [] };
    }
    default:
      return undefined;
  }
}

export interface PolicyEngine {
  /** What the server says at start: the binary and its version, or why there is none. */
  readonly description: string;
  readonly available: boolean;
  /** Whether the Rego text compiles with the built-ins policies may use, with OPA's own message when it does not. */
  check(rego: string, organization: string): Promise<CheckResult>;
  /** Evaluates `query` against the policy text with the input file; bounded by the engine's limits, in `organization`'s share of them. */
  evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string, organization: string): Promise<QueryAnswer>;
}

const SH = '/bin/sh';

export class OpaEngine implements PolicyEngine {
  readonly available = true;
  readonly description: string;
  private readonly capabilities: CapabilitiesFile;
  private readonly slots: FairSlots;
  private readonly compiler: WasmCompiler;
  private readonly wasm: WasmSlots;
  /** Evaluations answered in Wasm and by an `opa eval` process, and `opa build`s run (tests and figures). */
  readonly counts = { wasm: 0, opa: 0, builds: 0 };

  constructor(
    private readonly opaPath: string,
    version: string,
    private readonly limits: EngineLimits,
  ) {
    this.description = `OPA ${version} (${opaPath})`;
    this.capabilities = capabilitiesFileFor(opaPath);
    this.slots = new FairSlots(limits.concurrency, limits.perOrganization);
    this.compiler = new WasmCompiler(this.capabilities.file);
    this.wasm = new WasmSlots(limits.concurrency);
  }

  async check(rego: string, organization: string): Promise<CheckResult> {
    return withScratch(async (dir) => {
      const file = path.join(dir, 'policy.rego');
      await writeFile(file, rego, { mode: 0o600 });
      const caps = ['--capabilities', this.capabilities.file];
      const v1 = await this.run(['check', '--format', 'json', ...caps, file], organization);
      if (v1.code === 0) return { ok: true, regoVersion: 'v1' };
      const v0 = v1.stopped ? v1 : await this.run(['check', '--v0-compatible', '--format', 'json', ...caps, file], organization);
      if (v0.code === 0) return { ok: true, regoVersion: 'v0' };
      return checkRefusal([v1, v0], file, this.capabilities.removed, this.limits);
    });
  }

  /**
   * In one slot of `organization`'s fair share: the policy's compiled Wasm (built now on the first use of
   * its text on this node), evaluated in a worker; OPA itself when Wasm cannot answer exactly, with the
   * time the Wasm attempt left of the limit.
   */
  async evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string, organization: string): Promise<QueryAnswer> {
    const release = await this.slots.acquire(organization);
    try {
      const started = performance.now();
      const build = (args: string[]) => {
        this.counts.builds += 1;
        return this.spawnOpa(args);
      };
      const compiled = this.limits.wasm === false ? undefined : await this.compiler.compile(policy, build);
      if (compiled?.kind === 'wasm') {
        const limits = { memoryBytes: wasmMemoryBytes((await stat(inputPath)).size, this.limits.memoryBytes), maxOutputBytes: this.limits.maxOutputBytes };
        const answer = wasmAnswer(await this.wasm.evaluate(compiled.module, inputPath, limits, this.limits.timeoutMs), this.limits);
        if (answer) {
          this.counts.wasm += 1;
          return answer;
        }
      }
      this.counts.opa += 1;
      const left = Math.max(1, Math.round(this.limits.timeoutMs - (performance.now() - started)));
      return await this.evaluateWithOpa(policy, inputPath, left);
    } finally {
      release();
    }
  }

  /** Ends the engine's worker threads (at shutdown, and in tests). */
  async close(): Promise<void> {
    await this.wasm.close();
  }

  /** `opa eval` of the policy on the input file, in a child process; the caller holds the slot. */
  private evaluateWithOpa(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string, timeoutMs: number): Promise<QueryAnswer> {
    return withScratch(async (dir) => {
      const file = path.join(dir, 'policy.rego');
      await writeFile(file, policy.rego, { mode: 0o600 });
      const args = ['eval', '--format', 'json', '--timeout', `${timeoutMs}ms`, '--capabilities', this.capabilities.file, '--input', inputPath, '--data', file];
      if (policy.regoVersion === 'v0') args.push('--v0-compatible');
      args.push('--', policy.query);
      const outcome = await this.spawnOpa(args, timeoutMs);
      if (outcome.stopped === 'timeout') return { ok: false, reason: timeoutReason(this.limits) };
      if (outcome.stopped === 'output') return { ok: false, reason: outputReason(this.limits) };
      if (outcome.code !== 0) return { ok: false, reason: evalMessage(outcome, this.limits, this.capabilities.removed) };
      return parseEvalOutput(outcome.stdout, outcome.stderr);
    });
  }

  /**
   * Runs opa in one of the node's slots, taken in `organization`'s fair share (fair-slots.ts), under
   * `ulimit -d` (memory) at a lower CPU priority, killing it at the timeout or when its output passes the cap.
   * Asynchronous throughout: the event loop only collects bytes.
   */
  private async run(args: string[], organization: string): Promise<ChildOutcome> {
    const release = await this.slots.acquire(organization);
    try {
      return await this.spawnOpa(args);
    } finally {
      release();
    }
  }

  private spawnOpa(args: string[], timeoutMs = this.limits.timeoutMs): Promise<ChildOutcome> {
    const kib = Math.max(1, Math.floor(this.limits.memoryBytes / 1024));
    return new Promise((resolve) => {
      // Go's runtime honours GOMEMLIMIT first (it collects harder before the hard cap is hit).
      const child = spawn(SH, ['-c', `ulimit -d ${kib} && exec "$0" "$@"`, this.opaPath, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', GOMEMLIMIT: `${Math.floor(this.limits.memoryBytes / 2)}B`, GOMAXPROCS: '1' },
      });
      try {
        if (child.pid) setPriority(child.pid, 10);
      } catch {
        // The priority is a courtesy to the server's own work; the timeout and memory cap are the bounds.
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let stopped: ChildOutcome['stopped'];
      const stop = (why: 'timeout' | 'output') => {
        if (stopped) return;
        stopped = why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs + 500);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > this.limits.maxOutputBytes) return stop('output');
        out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        errBytes += chunk.length;
        if (errBytes > this.limits.maxOutputBytes) return stop('output');
        err.push(chunk);
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        resolve({ code: -1, stdout: '', stderr: error.message, stopped });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stopped });
      });
    });
  }
}

/** The engine the settings ask for: OPA when found, else one that says why there is none. */
export function policyEngineFor(settings: { opaPath: string | undefined; timeoutSeconds: number; memoryMb: number; concurrency: number; perOrganization: number }): PolicyEngine {
  const found = findOpa(settings.opaPath);
  if (found.path === undefined) return new MissingEngine('reason' in found ? found.reason : 'no opa');
  try {
    capabilitiesFileFor(found.path);
  } catch (error) {
    // Fail closed: an OPA whose built-ins cannot be restricted judges nothing, rather than everything with http.send.
    return new MissingEngine(`${found.path} did not say its capabilities (opa capabilities --current: ${(error as Error).message.split('\n')[0]}), so its built-ins cannot be restricted`);
  }
  return new OpaEngine(found.path, found.version, {
    timeoutMs: Math.round(settings.timeoutSeconds * 1000),
    memoryBytes: settings.memoryMb * 1024 * 1024,
    maxOutputBytes: 4 * 1024 * 1024,
    concurrency: settings.concurrency,
    perOrganization: settings.perOrganization,
  });
}

/** The engine of a server without OPA: it says so, and refuses to judge anything. */
export class MissingEngine implements PolicyEngine {
  readonly available = false;
  constructor(readonly description: string) {}
  async check(): Promise<CheckResult> {
    return { ok: false, problem: 'compile', message: `no policy engine: ${this.description}` };
  }
  async evaluate(): Promise<QueryAnswer> {
    return { ok: false, reason: `no policy engine on this server: ${this.description}` };
  }
}

async function withScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'teamstage-opa-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

