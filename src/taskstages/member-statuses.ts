/**
 * The statuses and levels of a stage's members as settlement reads them: run task results (shared statuses,
 * enforcement levels) and policy evaluations (statuses, what a finished one holds). Re-exported by stage-status.ts.
 */
import type { ResultStatus } from '../shared/task-stage-statuses.js';
import type { PolicyEvaluationStatus, PolicyHold } from '../shared/policy-evaluation-statuses.js';
import type { EnforcementLevel } from '../shared/enforcement-levels.js';

export { OPEN_POLICY_EVALUATION_STATUSES, POLICY_EVALUATION_STATUSES, type PolicyEvaluationStatus } from '../shared/policy-evaluation-statuses.js';

export { ENFORCEMENT_LEVELS, type EnforcementLevel } from '../shared/enforcement-levels.js';

/**
 * A finished policy evaluation as its stage sees it: what it asks of the stage (policies/policy-outcomes.ts):
 * `override` (a mandatory policy failed in an overridable set), `fail` (in a set that is not), `error`, `none`.
 */
export interface PolicyFacts {
  status: PolicyEvaluationStatus;
  hold: PolicyHold;
}

export interface ResultFacts {
  status: ResultStatus;
  enforcementLevel: EnforcementLevel;
}
