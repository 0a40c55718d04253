/**
 * The statuses and levels of a stage's members as settlement reads them: run task results (shared statuses,
 * enforcement levels) and policy evaluations (statuses, what a finished one holds). Re-exported by stage-status.ts.
 */
import type { ResultStatus } from '../shared/task-stage-statuses.js';

export const ENFORCEMENT_LEVELS = ['advisory', 'mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

/** A policy evaluation's statuses (HCP's names); `overridden` once a person released the stage it held. */
export const POLICY_EVALUATION_STATUSES = ['pending', 'running', 'passed', 'failed', 'errored', 'canceled', 'overridden'] as const;
export type PolicyEvaluationStatus = (typeof POLICY_EVALUATION_STATUSES)[number];
export const OPEN_POLICY_EVALUATION_STATUSES: readonly PolicyEvaluationStatus[] = ['pending', 'running'];

/**
 * A finished policy evaluation as its stage sees it: what it asks of the stage (policies/policy-outcomes.ts):
 * `override` (a mandatory policy failed in an overridable set), `fail` (in a set that is not), `error`, `none`.
 */
export interface PolicyFacts {
  status: PolicyEvaluationStatus;
  hold: 'none' | 'override' | 'fail' | 'error';
}

export interface ResultFacts {
  status: ResultStatus;
  enforcementLevel: EnforcementLevel;
}
