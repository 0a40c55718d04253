import { spawn, execFileSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The policy engine is the real OPA (issue 29), run as a child process per evaluation: `opa eval` reads the
 * policy and the input from files and answers JSON. Chosen over compiling each policy set to WebAssembly for
 * `@open-policy-agent/opa-wasm` (BENCHMARKS.md, "Policy evaluation (issue 29)" has both measured) because a process is the
 * stronger boundary: a crafted policy or plan runs in its own address space with its own memory cap
 * (`ulimit -d`: the data segment; Go reserves far more address space than it uses, so `-v` cannot be tight), its own CPU priority (niced below the server), and a timeout that kills it outright; none of it
 * touches the server's event loop or heap, and every builtin OPA has works (the Wasm target lacks some).
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
}

export type CheckResult = { ok: true; regoVersion: RegoVersion } | { ok: false; message: string };

/** One policy's query answered: its value (JSON), `undefined` when OPA found the query undefined; or why not. */
export type QueryAnswer =
  | { ok: true; defined: true; value: unknown; prints: string[] }
  | { ok: true; defined: false; prints: string[] }
  | { ok: false; reason: string };

export interface PolicyEngine {
  /** What the server says at start: the binary and its version, or why there is none. */
  readonly description: string;
  readonly available: boolean;
  /** Whether the Rego text compiles, with OPA's own message when it does not. */
  check(rego: string): Promise<CheckResult>;
  /** Evaluates `query` against the policy text with the input file; bounded by the engine's limits. */
  evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string): Promise<QueryAnswer>;
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
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly opaPath: string,
    version: string,
    private readonly limits: EngineLimits,
  ) {
    this.description = `OPA ${version} (${opaPath})`;
  }

  async check(rego: string): Promise<CheckResult> {
    return withScratch(async (dir) => {
      const file = path.join(dir, 'policy.rego');
      await writeFile(file, rego, { mode: 0o600 });
      const v1 = await this.run(['check', '--format', 'json', file]);
      if (v1.code === 0) return { ok: true, regoVersion: 'v1' };
      const v0 = await this.run(['check', '--v0-compatible', '--format', 'json', file]);
      if (v0.code === 0) return { ok: true, regoVersion: 'v0' };
      if (v1.stopped) return { ok: false, message: `opa check ${v1.stopped === 'timeout' ? 'timed out' : 'answered too much'}` };
      return { ok: false, message: checkMessage(v1.stdout || v1.stderr, file) };
    });
  }

  async evaluate(policy: { rego: string; regoVersion: RegoVersion; query: string }, inputPath: string): Promise<QueryAnswer> {
    return withScratch(async (dir) => {
      const file = path.join(dir, 'policy.rego');
      await writeFile(file, policy.rego, { mode: 0o600 });
      const args = ['eval', '--format', 'json', '--timeout', `${this.limits.timeoutMs}ms`, '--input', inputPath, '--data', file];
      if (policy.regoVersion === 'v0') args.push('--v0-compatible');
      args.push('--', policy.query);
      const outcome = await this.run(args);
      if (outcome.stopped === 'timeout') return { ok: false, reason: `the evaluation took longer than ${this.limits.timeoutMs} ms and was stopped` };
      if (outcome.stopped === 'output') return { ok: false, reason: `the evaluation answered more than ${this.limits.maxOutputBytes} bytes and was stopped` };
      if (outcome.code !== 0) return { ok: false, reason: evalMessage(outcome, this.limits) };
      return parseEvalOutput(outcome.stdout, outcome.stderr);
    });
  }

  /**
   * Runs opa under `ulimit -d` (memory) at a lower CPU priority, killing it at the timeout or when its output
   * passes the cap. Asynchronous throughout: the event loop only collects bytes.
   */
  private async run(args: string[]): Promise<ChildOutcome> {
    if (this.running >= this.limits.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await this.spawnOpa(args);
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
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
export function policyEngineFor(settings: { opaPath: string | undefined; timeoutSeconds: number; memoryMb: number; concurrency: number }): PolicyEngine {
  const found = findOpa(settings.opaPath);
  if (found.path === undefined) return new MissingEngine('reason' in found ? found.reason : 'no opa');
  return new OpaEngine(found.path, found.version, {
    timeoutMs: Math.round(settings.timeoutSeconds * 1000),
    memoryBytes: settings.memoryMb * 1024 * 1024,
    maxOutputBytes: 4 * 1024 * 1024,
    concurrency: settings.concurrency,
  });
}

/** The engine of a server without OPA: it says so, and refuses to judge anything. */
export class MissingEngine implements PolicyEngine {
  readonly available = false;
  constructor(readonly description: string) {}
  async check(): Promise<CheckResult> {
    return { ok: false, message: `no policy engine: ${this.description}` };
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

export function evalMessage(outcome: ChildOutcome, limits: { memoryBytes: number; timeoutMs: number }): string {
  const { memoryBytes } = limits;
  const text = outcome.stdout || outcome.stderr;
  // OPA's own --timeout ends an evaluation with one of several messages ("context deadline exceeded",
  // "numbers.range: timed out …"): one reason, ours, whichever it was.
  if (/context deadline exceeded|timed out|eval_cancel_error/i.test(text)) return `the evaluation took longer than ${limits.timeoutMs} ms and was stopped`;
  // Go's runtime ends a process that reached the memory cap with "fatal error: runtime: …" or, with Go 1.26's
  // green tea collector, sometimes a SIGSEGV inside the runtime (our build uses the classic collector:
  // scripts/build-opa.sh; an operator's own opa may not).
  if (/out of memory|cannot allocate memory|runtime: failed to reserve|fatal error: runtime/i.test(outcome.stderr) || GO_RUNTIME_SEGFAULT.test(outcome.stderr)) {
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
