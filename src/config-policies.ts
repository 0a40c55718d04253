/**
 * The policy settings (TEAMSTAGE_POLICY_* and TEAMSTAGE_OPA_PATH; issues 29 and 34), read by config.ts with
 * its own parsers (passed in, so this file imports nothing of it).
 */
export interface PolicySettings {
  /** TEAMSTAGE_OPA_PATH: the opa binary; unset: `opa` on the PATH. */
  opaPath: string | undefined;
  /** TEAMSTAGE_POLICY_TIMEOUT: seconds one policy's evaluation may take before it is stopped and errored. */
  timeoutSeconds: number;
  /** TEAMSTAGE_POLICY_MEMORY_MB: memory one evaluation may take (an OPA process's data segment; the Wasm budget, opa-engine.ts wasmMemoryBytes, never exceeds it) before it is stopped and errored. */
  memoryMb: number;
  /** TEAMSTAGE_POLICY_CONCURRENCY: policy evaluations at once on this node, each a Wasm worker thread or an OPA process (the rest wait their turn, fairly across organizations). */
  concurrency: number;
  /**
   * TEAMSTAGE_POLICY_PER_ORGANIZATION: of those, at most this many for one organization, and as many of its
   * evaluations in progress on this node (each runs its policies one after another). Default: half the slots.
   */
  perOrganization: number;
  /** TEAMSTAGE_POLICY_MAX_BYTES: the largest Rego text a policy may have. */
  maxBytes: number;
  /** TEAMSTAGE_POLICIES_PER_ORGANIZATION: policies one organization may have. */
  policiesPerOrganization: number;
}

/**
 * 512 KiB of Rego (the limit before it was a setting): far more than a hand-written policy, and compiled well
 * within the default memory bound (500 KiB of generated rules peaked at 94 MiB, 250,000 nested brackets at 150 MiB).
 */
export const DEFAULT_POLICY_MAX_BYTES = 512 * 1024;
/** Every policy of a set that applies is evaluated for every run: a few hundred is a large library. */
export const DEFAULT_POLICIES_PER_ORGANIZATION = 500;

interface Parsers {
  positiveNumber(name: string, raw: string | undefined, fallback: number): number;
  wholeCount(name: string, raw: string | undefined, fallback: number): number;
  fail(message: string): Error;
}

export function policySettings(env: NodeJS.ProcessEnv, { positiveNumber, wholeCount, fail }: Parsers): PolicySettings {
  const concurrency = Math.max(1, wholeCount('TEAMSTAGE_POLICY_CONCURRENCY', env.TEAMSTAGE_POLICY_CONCURRENCY, 2));
  const perOrganization = wholeCount('TEAMSTAGE_POLICY_PER_ORGANIZATION', env.TEAMSTAGE_POLICY_PER_ORGANIZATION, Math.max(1, Math.floor(concurrency / 2)));
  if (perOrganization > concurrency) {
    throw fail(`TEAMSTAGE_POLICY_PER_ORGANIZATION (${perOrganization}) must not exceed TEAMSTAGE_POLICY_CONCURRENCY (${concurrency})`);
  }
  return {
    opaPath: env.TEAMSTAGE_OPA_PATH || undefined,
    timeoutSeconds: positiveNumber('TEAMSTAGE_POLICY_TIMEOUT', env.TEAMSTAGE_POLICY_TIMEOUT, 10),
    memoryMb: Math.max(128, wholeCount('TEAMSTAGE_POLICY_MEMORY_MB', env.TEAMSTAGE_POLICY_MEMORY_MB, 512)),
    concurrency,
    perOrganization,
    maxBytes: wholeCount('TEAMSTAGE_POLICY_MAX_BYTES', env.TEAMSTAGE_POLICY_MAX_BYTES, DEFAULT_POLICY_MAX_BYTES),
    policiesPerOrganization: wholeCount('TEAMSTAGE_POLICIES_PER_ORGANIZATION', env.TEAMSTAGE_POLICIES_PER_ORGANIZATION, DEFAULT_POLICIES_PER_ORGANIZATION),
  };
}
