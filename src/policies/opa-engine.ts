import { spawn, execFileSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capabilitiesFileFor, unavailableBuiltinIn, type CapabilitiesFile } from './opa-capabilities.js';
import { FairSlots } from './fair-slots.js';

/**
 * The policy engine is the real OPA (issue 29), run as a child process per evaluation: `opa eval` reads the
 * policy and the input from files and answers JSON. Chosen over compiling each policy set to WebAssembly for
 * `@open-policy-agent/opa-wasm` (BENCHMARKS.md, "Policy evaluation (issue 29)" has both measured) because a process is the
 * stronger boundary: a crafted policy or plan runs in its own address space with its own memory cap
 * (`ulimit -d`: the data segment; Go reserves far more address space than it uses, so `-v` cannot be tight), its own CPU priority (niced below the server), and a timeout that kills it outright; none of it
 * touches the server's event loop or heap. Built-ins that reach outside the plan (`http.send`, …) are taken away
 * at upload and at every evaluation (opa-capabilities.ts); the node's processes are shared fairly across
 * organizations (fair-slots.ts).
 *
 * OPA 1.x reads Rego v1; the older syntax that HCP's examples and go-tfe's tests use (`rule[x] { … }`) is
 * accepted as Rego v0 (`--v0-compatible`): `check` finds which one a text is, and evaluation uses it.
 */

export type RegoVersion = 'v1' | 'v0';

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
}

/** Why a policy is refused: it does not compile, calls a built-in policies may not use, or compiling it hit a bound. */
export type CheckProblem = 'compile' | 'builtin' | 'memory' | 'timeout';

export type CheckResult = { ok: true; regoVersion: RegoVersion } | { ok: false; problem: CheckProblem; message: string; builtin?: string };

/** One policy's query answered: its value (JSON), `undefined` when OPA found the query undefined; or why not. */
export type QueryAnswer =
  | { ok: true; defined: true; value: unknown; prints: string[] }
  | { ok: true; defined: false; prints: string[] }
  | { ok: false; reason: string };

export interface PolicyEngine {
  /** What the server says at start: the binary and its version, or why there is none. */
  readonly description: string;
  readonly available: boolean;
  /** Whether the Rego text compiles with the built-ins policies may use, with OPA's own message when it does not. */
  check(rego: string, organization: string): Promise<CheckResult>;
  /** Evaluates `query` against the policy text with the input file; bounded by the engine's limits, in `organization`'s share of them. */
  evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string, organization: string): Promise<QueryAnswer>;
}

/** How a child process ended: its output (capped), or why it was stopped. */
interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  stopped?: 'timeout' | 'output';
}

const SH = '/bin/sh';

/**
 * The binary to use: TEAMSTAGE_OPA_PATH when set (it must work), else `opa` on the PATH; undefined when there is
 * none. Runs `opa version` once, at start, synchronously (before the server listens).
 */
export function findOpa(configuredPath: string | undefined): { path: string; version: string } | { path: undefined; reason: string } {
  const candidate = configuredPath || 'opa';
  // The binary does not change under a running process: asked once per path (tests build many apps).
  const known = FOUND.get(candidate);
  if (known) return known;
  const found = probeOpa(candidate, configuredPath);
  FOUND.set(candidate, found);
  return found;
}

const FOUND = new Map<string, ReturnType<typeof findOpa>>();

function probeOpa(candidate: string, configuredPath: string | undefined): ReturnType<typeof findOpa> {
  try {
    const out = execFileSync(candidate, ['version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const version = /^Version:\s*(\S+)/m.exec(out)?.[1] ?? 'unknown';
    return { path: candidate, version };
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message.split('\n')[0];
    return { path: undefined, reason: configuredPath ? `TEAMSTAGE_OPA_PATH=${configuredPath}: ${why}` : `no opa on the PATH (${why}); set TEAMSTAGE_OPA_PATH` };
  }
}

export class OpaEngine implements PolicyEngine {
  readonly available = true;
  readonly description: string;
  private readonly capabilities: CapabilitiesFile;
  private readonly slots: FairSlots;

  constructor(
    private readonly opaPath: string,
    version: string,
    private readonly limits: EngineLimits,
  ) {
    this.description = `OPA ${version} (${opaPath})`;
    this.capabilities = capabilitiesFileFor(opaPath);
    this.slots = new FairSlots(limits.concurrency, limits.perOrganization);
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

  async evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string, organization: string): Promise<QueryAnswer> {
    return withScratch(async (dir) => {
      const file = path.join(dir, 'policy.rego');
      await writeFile(file, policy.rego, { mode: 0o600 });
      const args = ['eval', '--format', 'json', '--timeout', `${this.limits.timeoutMs}ms`, '--capabilities', this.capabilities.file, '--input', inputPath, '--data', file];
      if (policy.regoVersion === 'v0') args.push('--v0-compatible');
      args.push('--', policy.query);
      const outcome = await this.run(args, organization);
      if (outcome.stopped === 'timeout') return { ok: false, reason: `the evaluation took longer than ${this.limits.timeoutMs} ms and was stopped` };
      if (outcome.stopped === 'output') return { ok: false, reason: `the evaluation answered more than ${this.limits.maxOutputBytes} bytes and was stopped` };
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

  private spawnOpa(args: string[]): Promise<ChildOutcome> {
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
      const timer = setTimeout(() => stop('timeout'), this.limits.timeoutMs + 500);
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

/** OPA's own messages from `opa check --format json`, with the scratch file's path replaced by the policy's name. */
function checkMessage(text: string, file: string): string {
  try {
    const parsed = JSON.parse(text) as { errors?: Array<{ message?: string; location?: { row?: number; col?: number } }> };
    if (parsed.errors?.length) {
      return parsed.errors
        .map((e) => `${e.location?.row !== undefined ? `${e.location.row}:${e.location.col ?? 0}: ` : ''}${e.message ?? 'error'}`)
        .join('; ');
    }
  } catch {
    // Not JSON: use the text as it is.
  }
  return text.split(file).join('policy.rego').trim().slice(0, 4000) || 'the policy does not compile';
}

/** A Go runtime crash: SIGSEGV, then the runtime's own frames. */
const GO_RUNTIME_SEGFAULT = /^SIGSEGV: segmentation violation[\s\S]*\bruntime\./m;

/**
 * Go's runtime ends a process that reached the memory cap with "fatal error: runtime: …" or, with Go 1.26's
 * green tea collector, sometimes a SIGSEGV inside the runtime (our build uses the classic collector:
 * scripts/build-opa.sh; an operator's own opa may not).
 */
function reachedMemoryCap(outcome: ChildOutcome): boolean {
  return /out of memory|cannot allocate memory|runtime: failed to reserve|fatal error: runtime/i.test(outcome.stderr) || GO_RUNTIME_SEGFAULT.test(outcome.stderr);
}

/** What an outcome says of a policy that calls a built-in policies may not use. */
export function unavailableBuiltinReason(builtin: string): string {
  return `the policy calls ${builtin}, which policies cannot use on this server (a policy sees the plan and the run, never the network, the clock or chance)`;
}

/** Why `opa check` refused a policy, from its v1 and v0 attempts: a bound it hit, a built-in it may not use, or OPA's own message. */
function checkRefusal(attempts: ChildOutcome[], file: string, unavailable: readonly string[], limits: { memoryBytes: number; timeoutMs: number }): CheckResult {
  const [v1] = attempts as [ChildOutcome];
  const mib = Math.floor(limits.memoryBytes / (1024 * 1024));
  if (attempts.some(reachedMemoryCap)) return { ok: false, problem: 'memory', message: `compiling the policy needed more than ${mib} MiB (TEAMSTAGE_POLICY_MEMORY_MB)` };
  if (attempts.some((a) => a.stopped === 'timeout')) return { ok: false, problem: 'timeout', message: `compiling the policy took longer than ${limits.timeoutMs} ms (TEAMSTAGE_POLICY_TIMEOUT)` };
  if (attempts.some((a) => a.stopped === 'output')) return { ok: false, problem: 'compile', message: 'opa check answered too much' };
  for (const attempt of attempts) {
    const builtin = unavailableBuiltinIn(attempt.stdout || attempt.stderr, unavailable);
    if (builtin) return { ok: false, problem: 'builtin', builtin, message: unavailableBuiltinReason(builtin) };
  }
  return { ok: false, problem: 'compile', message: checkMessage(v1.stdout || v1.stderr, file) };
}

export function evalMessage(outcome: ChildOutcome, limits: { memoryBytes: number; timeoutMs: number }, unavailable: readonly string[] = []): string {
  const { memoryBytes } = limits;
  const text = outcome.stdout || outcome.stderr;
  // A policy stored before built-ins were restricted (or written into the database by hand) still cannot call one.
  const builtin = unavailableBuiltinIn(text, unavailable);
  if (builtin) return unavailableBuiltinReason(builtin);
  // OPA's own --timeout ends an evaluation with one of several messages ("context deadline exceeded",
  // "numbers.range: timed out …"): one reason, ours, whichever it was.
  if (/context deadline exceeded|timed out|eval_cancel_error/i.test(text)) return `the evaluation took longer than ${limits.timeoutMs} ms and was stopped`;
  if (reachedMemoryCap(outcome)) {
    return `the evaluation needed more than ${Math.floor(memoryBytes / (1024 * 1024))} MiB and was stopped`;
  }
  try {
    const parsed = JSON.parse(text) as { errors?: Array<{ message?: string; code?: string }> };
    if (parsed.errors?.length) return parsed.errors.map((e) => e.message ?? e.code ?? 'error').join('; ').slice(0, 4000);
  } catch {
    // Not JSON.
  }
  return (text.trim() || `opa exited with ${outcome.code}`).slice(0, 4000);
}

/** `opa eval --format json`: `{"result":[{"expressions":[{"value":…}]}]}`, or `{}` when undefined; print() goes to stderr. */
export function parseEvalOutput(stdout: string, stderr: string): QueryAnswer {
  const prints = stderr.split('\n').filter((line) => line.length > 0).slice(0, 100);
  let parsed: { result?: Array<{ expressions?: Array<{ value: unknown }> }> };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    return { ok: false, reason: 'OPA answered something that is not JSON' };
  }
  const first = parsed.result?.[0]?.expressions?.[0];
  if (!first) return { ok: true, defined: false, prints };
  return { ok: true, defined: true, value: first.value, prints };
}
