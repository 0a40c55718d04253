/**
 * The status vocabulary of task stages and results (HCP Terraform's names) and the one rule that turns the
 * results of a stage into the stage's status. Pure functions of plain data; no I/O.
 */
import { FINAL_RESULT_STATUSES } from '../shared/task-stage-statuses.js';
import { evaluationMember, resultMember, settledStatus, type SettledStatus } from './stage-settlement-rule.js';
import type { PolicyFacts, ResultFacts } from './member-statuses.js';

export {
  ENFORCEMENT_LEVELS, OPEN_POLICY_EVALUATION_STATUSES, POLICY_EVALUATION_STATUSES, type EnforcementLevel, type PolicyEvaluationStatus, type PolicyFacts, type ResultFacts,
} from './member-statuses.js';

export {
  FINAL_RESULT_STATUSES, OPEN_RESULT_STATUSES, OPEN_STAGE_STATUSES, RESULT_STATUSES, STAGE_STATUSES, type ResultStatus, type StageStatus,
} from '../shared/task-stage-statuses.js';

export function isFinalResultStatus(status: string): boolean {
  return (FINAL_RESULT_STATUSES as readonly string[]).includes(status);
}

/**
 * The status of a stage whose run task results and policy evaluations are as given, or `running` while any
 * of them is still open: both are members of the stage, settled by the one rule of stage-settlement-rule.ts.
 *
 * - a canceled result or evaluation (the run was canceled or discarded) cancels the stage;
 * - a mandatory policy failed in a set that is not overridable: `failed` (nobody may let the run go on);
 * - a mandatory result failed, or a mandatory policy in an overridable set: `awaiting_override`;
 * - else a mandatory result or policy errored: `errored`; else a result was unreachable: `unreachable`;
 * - else (all passed, or only advisory ones did not): `passed`.
 *
 * A stage with nothing in it passes: there is nothing to wait for.
 */
export function deriveStageStatus(results: readonly ResultFacts[], policies: readonly PolicyFacts[] = []): SettledStatus {
  return settledStatus([...results.map(resultMember), ...policies.map(evaluationMember)]);
}
