import { unavailableBuiltinIn } from './opa-capabilities.js';
import type { CheckResult, QueryAnswer } from './opa-types.js';

/**
 * What OPA's answers and failures mean for Teamstage (opa-engine.ts): its compile messages, the bound a
 * stopped or crashed process reached, and `opa eval`'s JSON.
 */

/** How a child process ended: its output (capped), or why it was stopped. */
export interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  stopped?: 'timeout' | 'output';
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
export function checkRefusal(attempts: ChildOutcome[], file: string, unavailable: readonly string[], limits: { memoryBytes: number; timeoutMs: number }): CheckResult {
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
