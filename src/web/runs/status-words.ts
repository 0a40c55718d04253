import type { PhaseStatus, RunStatus } from '../../shared/run-statuses.js';
import type { ResultStatus, StageStatus } from '../../shared/task-stage-statuses.js';

/**
 * Every status the API sends, in words a reviewer reads ("Waiting for a decision after the plan", not
 * `post_plan_awaiting_decision`). One map per shared status type, each a `Record` over that type: a status
 * added in src/shared fails to compile here until it has its words.
 */
export const RUN_STATUS_WORDS: Record<RunStatus, string> = {
  pending: 'Pending',
  plan_queued: 'Plan queued',
  pre_plan_running: 'Checking before the plan',
  pre_plan_completed: 'Checked before the plan',
  pre_plan_awaiting_decision: 'Needs a decision before the plan',
  planning: 'Planning',
  planned: 'Planned, waiting for confirmation',
  post_plan_running: 'Checking the plan',
  post_plan_completed: 'Plan checked',
  post_plan_awaiting_decision: 'Needs a decision on the plan',
  planned_and_finished: 'Planned, nothing to apply',
  confirmed: 'Confirmed',
  pre_apply_running: 'Checking before the apply',
  pre_apply_completed: 'Checked before the apply',
  pre_apply_awaiting_decision: 'Needs a decision before the apply',
  apply_queued: 'Apply queued',
  applying: 'Applying',
  applied: 'Applied',
  post_apply_running: 'Checking the apply',
  post_apply_completed: 'Applied and checked',
  post_apply_awaiting_decision: 'Needs a decision after the apply',
  discarded: 'Discarded',
  errored: 'Errored',
  canceled: 'Canceled',
};

export const PHASE_STATUS_WORDS: Record<PhaseStatus, string> = {
  pending: 'Pending',
  queued: 'Queued',
  running: 'Running',
  finished: 'Finished',
  errored: 'Errored',
  canceled: 'Canceled',
  unreachable: 'Not reached',
};

export const STAGE_STATUS_WORDS: Record<StageStatus, string> = {
  pending: 'Pending',
  running: 'Running',
  passed: 'Passed',
  failed: 'Failed',
  awaiting_override: 'Needs a decision',
  errored: 'Errored',
  canceled: 'Canceled',
  unreachable: 'Not reached',
};

export const RESULT_STATUS_WORDS: Record<ResultStatus, string> = {
  pending: 'Pending',
  running: 'Running',
  passed: 'Passed',
  failed: 'Failed',
  errored: 'Errored',
  canceled: 'Canceled',
  unreachable: 'Not reached',
};

/** Statuses that are none of the shared types: policy evaluations and the timestamps' keys ("overridden-at"). */
const OTHER_WORDS: Readonly<Record<string, string>> = {
  queued: 'Queued',
  overridden: 'Overridden',
  soft_failed: 'Failed (advisory)',
  hard_failed: 'Failed',
  force_canceled: 'Force canceled',
  started: 'Started',
  'awaiting-override': 'Needs a decision',
};

const ALL_WORDS: Readonly<Record<string, string>> = {
  ...OTHER_WORDS,
  ...RESULT_STATUS_WORDS,
  ...STAGE_STATUS_WORDS,
  ...PHASE_STATUS_WORDS,
  ...RUN_STATUS_WORDS,
};

/** The words for any status the API sends; one it does not know (a newer server) is shown spaced, never raw. */
export function statusWords(status: string): string {
  if (Object.hasOwn(ALL_WORDS, status)) return ALL_WORDS[status]!;
  const spaced = status.replace(/[_-]/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** What a status means for the reader, one colour each: passed, needs a decision, failed, in progress, informational. */
export type StatusMeaning = 'passed' | 'decision' | 'failed' | 'progress' | 'info';

export function statusMeaning(status: string): StatusMeaning {
  if (/(passed|finished|applied|completed)$/.test(status)) return 'passed';
  if (/(failed|errored|unreachable)$/.test(status)) return 'failed';
  if (/(awaiting_override|awaiting_decision)$/.test(status) || status === 'planned') return 'decision';
  if (/(running|planning|applying|queued|pending|confirmed)$/.test(status)) return 'progress';
  return 'info';
}
