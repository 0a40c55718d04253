/**
 * A policy evaluation's statuses (HCP's names), shared by the server's stage settlement and the console:
 * `overridden` once a person released the stage it held.
 */
export const POLICY_EVALUATION_STATUSES = ['pending', 'running', 'passed', 'failed', 'errored', 'canceled', 'overridden'] as const;
export type PolicyEvaluationStatus = (typeof POLICY_EVALUATION_STATUSES)[number];

/** Statuses in which an evaluation has not judged yet (it has no policy set outcomes). */
export const OPEN_POLICY_EVALUATION_STATUSES: readonly PolicyEvaluationStatus[] = ['pending', 'running'];

/**
 * What a finished evaluation asks of its task stage (src/policies/policy-outcomes.ts): nothing, an override (a
 * mandatory policy failed in an overridable set), a failure (in a set that is not), an error.
 */
export const POLICY_HOLDS = ['none', 'override', 'fail', 'error'] as const;
export type PolicyHold = (typeof POLICY_HOLDS)[number];
