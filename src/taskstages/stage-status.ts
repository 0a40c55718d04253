/**
 * The status vocabulary of task stages and results (HCP Terraform's names) and the one rule that turns the
 * results of a stage into the stage's status. Pure functions of plain data; no I/O.
 */
import { FINAL_RESULT_STATUSES, type ResultStatus } from '../shared/task-stage-statuses.js';

export {
  FINAL_RESULT_STATUSES, OPEN_RESULT_STATUSES, OPEN_STAGE_STATUSES, RESULT_STATUSES, STAGE_STATUSES, type ResultStatus, type StageStatus,
} from '../shared/task-stage-statuses.js';

export const ENFORCEMENT_LEVELS = ['advisory', 'mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

export function isFinalResultStatus(status: string): boolean {
  return (FINAL_RESULT_STATUSES as readonly string[]).includes(status);
}

export interface ResultFacts {
  status: ResultStatus;
  enforcementLevel: EnforcementLevel;
}

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

/**
 * The status of a stage whose run task results and policy evaluations are as given, or `running` while any
 * of them is still open. Results and evaluations settle the stage together:
 *
 * - a canceled result or evaluation (the run was canceled or discarded) cancels the stage;
 * - a mandatory policy failed in a set that is not overridable: `failed` (nobody may let the run go on);
 * - a mandatory result failed, or a mandatory policy in an overridable set: `awaiting_override`;
 * - else a mandatory result or policy errored: `errored`; else a result was unreachable: `unreachable`;
 * - else (all passed, or only advisory ones did not): `passed`.
 *
 * A stage with nothing in it passes: there is nothing to wait for.
 */
export function deriveStageStatus(
  results: readonly ResultFacts[],
  policies: readonly PolicyFacts[] = [],
): 'running' | 'passed' | 'failed' | 'awaiting_override' | 'errored' | 'unreachable' | 'canceled' {
  if (results.some((result) => !isFinalResultStatus(result.status))) return 'running';
  if (policies.some((policy) => OPEN_POLICY_EVALUATION_STATUSES.includes(policy.status))) return 'running';
  if (results.some((result) => result.status === 'canceled') || policies.some((policy) => policy.status === 'canceled')) return 'canceled';
  if (policies.some((policy) => policy.hold === 'fail')) return 'failed';
  const mandatory = results.filter((result) => result.enforcementLevel === 'mandatory');
  if (mandatory.some((result) => result.status === 'failed') || policies.some((policy) => policy.hold === 'override')) return 'awaiting_override';
  if (mandatory.some((result) => result.status === 'errored') || policies.some((policy) => policy.hold === 'error')) return 'errored';
  if (mandatory.some((result) => result.status === 'unreachable')) return 'unreachable';
  return 'passed';
}
