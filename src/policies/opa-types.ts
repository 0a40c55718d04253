/** What the policy engine (opa-engine.ts) answers, shared by the modules it is made of. */

export type RegoVersion = 'v1' | 'v0';

/** Why a policy is refused: it does not compile, calls a built-in policies may not use, or compiling it hit a bound. */
export type CheckProblem = 'compile' | 'builtin' | 'memory' | 'timeout';

export type CheckResult = { ok: true; regoVersion: RegoVersion } | { ok: false; problem: CheckProblem; message: string; builtin?: string };

/** One policy's query answered: its value (JSON), `undefined` when OPA found the query undefined; or why not. */
export type QueryAnswer =
  | { ok: true; defined: true; value: unknown; prints: string[] }
  | { ok: true; defined: false; prints: string[] }
  | { ok: false; reason: string };
