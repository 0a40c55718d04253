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

/**
 * The status of a stage whose results are as given, or `running` while any result is still open.
 *
 * - a canceled result (the run was canceled or discarded) cancels the stage;
 * - every result passed, or only advisory results did not pass: `passed`;
 * - a mandatory result failed: `awaiting_override` (a person may let the run go on);
 * - else a mandatory result errored: `errored`; else one was unreachable: `unreachable`.
 *
 * A stage with no results passes: there is nothing to wait for.
 */
export function deriveStageStatus(results: readonly ResultFacts[]): 'running' | 'passed' | 'awaiting_override' | 'errored' | 'unreachable' | 'canceled' {
  if (results.some((result) => !isFinalResultStatus(result.status))) return 'running';
  if (results.some((result) => result.status === 'canceled')) return 'canceled';
  const mandatory = results.filter((result) => result.enforcementLevel === 'mandatory');
  if (mandatory.some((result) => result.status === 'failed')) return 'awaiting_override';
  if (mandatory.some((result) => result.status === 'errored')) return 'errored';
  if (mandatory.some((result) => result.status === 'unreachable')) return 'unreachable';
  return 'passed';
}
