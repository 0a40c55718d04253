import type { TaskStageName } from '../db/schema.js';

/**
 * The run state machine: a pure function of the current status, an event and the
 * facts that decide between branches (plan-only, which task stages the run has). Every status change
 * of a run goes through `transition`; it answers null when the event is not allowed in that status,
 * which the actions turn into 409.
 */

import { RUN_STATUSES, TERMINAL_RUN_STATUSES, type RunStatus } from '../shared/run-statuses.js';

export { RUN_STATUSES, type RunStatus };

export const RUN_EVENTS = [
  /** pending → plan_queued: the run takes its turn. */
  'queue',
  /** Enter the next task stage of the run: sets `<stage>_running`. */
  'start_stage',
  /** The current stage passed (also after an override): `<stage>_completed`. */
  'stage_passed',
  /** A mandatory task failed: `<stage>_awaiting_decision` until an override or a discard. */
  'stage_needs_override',
  /** The stage errored or was unreachable: the run errors. */
  'stage_failed',
  'start_plan',
  'plan_finished',
  /**
   * A plan-only run stops after its plan (and post-plan stage); so does a run whose plan, reported by a
   * pipeline (agent mode), has no changes (HCP's `planned_and_finished`).
   */
  'finish_plan_only',
  /** Apply was confirmed, by a user or by auto-apply. */
  'confirm',
  'queue_apply',
  'start_apply',
  'apply_finished',
  'discard',
  'cancel',
  /** The executor or the service failed: the run errors. */
  'error',
] as const;
export type RunEvent = (typeof RUN_EVENTS)[number];

export interface RunFacts {
  planOnly: boolean;
  /** The task stages created for this run (only stage values with an enabled workspace task). */
  stages: ReadonlySet<TaskStageName>;
  /**
   * The plan has no changes (reported by a pipeline in agent mode, or the built-in executor's in remote
   * mode): the run ends after its plan and post-plan stage, `planned_and_finished`, as HCP's do (terraform's
   * and tofu's `cloud` block confirm nothing then). Read only once the plan is done (`planned` and after).
   * Absent: false.
   */
  noChanges?: boolean;
}

/** The run stops after its plan (and post-plan stage): plan-only, or nothing to apply. */
export function endsAfterPlan(facts: RunFacts): boolean {
  return facts.planOnly || facts.noChanges === true;
}

/** Statuses nothing leaves. `applied` is not among them: a post-apply stage may follow it. */
export const TERMINAL_STATUSES = TERMINAL_RUN_STATUSES;

const RUNNING: Record<TaskStageName, RunStatus> = {
  pre_plan: 'pre_plan_running',
  post_plan: 'post_plan_running',
  pre_apply: 'pre_apply_running',
  post_apply: 'post_apply_running',
};
const COMPLETED: Record<TaskStageName, RunStatus> = {
  pre_plan: 'pre_plan_completed',
  post_plan: 'post_plan_completed',
  pre_apply: 'pre_apply_completed',
  post_apply: 'post_apply_completed',
};
const AWAITING: Record<TaskStageName, RunStatus> = {
  pre_plan: 'pre_plan_awaiting_decision',
  post_plan: 'post_plan_awaiting_decision',
  pre_apply: 'pre_apply_awaiting_decision',
  post_apply: 'post_apply_awaiting_decision',
};

/** Where each task stage is entered from. */
const STAGE_ENTRY: Record<TaskStageName, RunStatus> = {
  pre_plan: 'plan_queued',
  post_plan: 'planned',
  pre_apply: 'confirmed',
  post_apply: 'applied',
};

/** The task stage a status belongs to (`post_plan_running` → `post_plan`), if any. */
export function stageOfStatus(status: RunStatus): { stage: TaskStageName; phase: 'running' | 'completed' | 'awaiting_decision' } | undefined {
  for (const stage of Object.keys(RUNNING) as TaskStageName[]) {
    if (RUNNING[stage] === status) return { stage, phase: 'running' };
    if (COMPLETED[stage] === status) return { stage, phase: 'completed' };
    if (AWAITING[stage] === status) return { stage, phase: 'awaiting_decision' };
  }
  return undefined;
}

/** The task stage entered from `status` by `start_stage`, if the run has one there. */
export function stageEnteredFrom(status: RunStatus, facts: RunFacts): TaskStageName | undefined {
  for (const stage of Object.keys(STAGE_ENTRY) as TaskStageName[]) {
    if (STAGE_ENTRY[stage] === status && facts.stages.has(stage) && !(facts.planOnly && (stage === 'pre_apply' || stage === 'post_apply'))) {
      return stage;
    }
  }
  return undefined;
}

/**
 * Waiting for someone to confirm the apply (or discard): the plan is done, the post-plan stage (if
 * any) passed, and the run is not plan-only and has changes (a run without changes ends after its plan).
 */
export function awaitsConfirmation(status: RunStatus, facts: RunFacts): boolean {
  if (endsAfterPlan(facts)) return false;
  if (status === 'post_plan_completed') return true;
  return status === 'planned' && !facts.stages.has('post_plan');
}

/** Waiting for a person: to confirm, or to override a stage. Discard is the way out of these. */
export function isDiscardable(status: RunStatus, facts: RunFacts): boolean {
  return status === 'pending' || awaitsConfirmation(status, facts) || stageOfStatus(status)?.phase === 'awaiting_decision';
}

/**
 * Work in progress (queued or running): cancel interrupts it. Waiting states are discarded instead, except
 * `pending`: a run waiting for its turn in the workspace's queue may be canceled too (as HCP allows).
 */
export function isCancelable(status: RunStatus, facts: RunFacts): boolean {
  if (TERMINAL_STATUSES.has(status)) return false;
  if (status === 'pending') return true;
  if (isDiscardable(status, facts)) return false;
  // `applied` with nothing after it is finished; with a post-apply stage to enter it is still in progress.
  if (status === 'applied') return stageEnteredFrom('applied', facts) !== undefined;
  // A run that ends after its plan, in `planned` / `post_plan_completed`, is about to finish; there is nothing left to cancel.
  if (endsAfterPlan(facts) && (status === 'planned' || status === 'post_plan_completed')) return stageEnteredFrom(status, facts) !== undefined;
  return true;
}

/** The status after `event`, or null when the event is not allowed now. */
export function transition(status: RunStatus, event: RunEvent, facts: RunFacts): RunStatus | null {
  const inStage = stageOfStatus(status);
  switch (event) {
    case 'queue':
      return status === 'pending' ? 'plan_queued' : null;
    case 'start_stage': {
      const stage = stageEnteredFrom(status, facts);
      return stage ? RUNNING[stage] : null;
    }
    case 'stage_passed':
      return inStage && inStage.phase !== 'completed' ? COMPLETED[inStage.stage] : null;
    case 'stage_needs_override':
      return inStage?.phase === 'running' ? AWAITING[inStage.stage] : null;
    case 'stage_failed':
      return inStage && inStage.phase !== 'completed' ? 'errored' : null;
    case 'start_plan':
      if (status === 'pre_plan_completed') return 'planning';
      return status === 'plan_queued' && stageEnteredFrom(status, facts) === undefined ? 'planning' : null;
    case 'plan_finished':
      return status === 'planning' ? 'planned' : null;
    case 'finish_plan_only':
      if (!endsAfterPlan(facts)) return null;
      if (status === 'post_plan_completed') return 'planned_and_finished';
      return status === 'planned' && stageEnteredFrom(status, facts) === undefined ? 'planned_and_finished' : null;
    case 'confirm':
      return awaitsConfirmation(status, facts) ? 'confirmed' : null;
    case 'queue_apply':
      if (status === 'pre_apply_completed') return 'apply_queued';
      return status === 'confirmed' && stageEnteredFrom(status, facts) === undefined ? 'apply_queued' : null;
    case 'start_apply':
      return status === 'apply_queued' ? 'applying' : null;
    case 'apply_finished':
      return status === 'applying' ? 'applied' : null;
    case 'discard':
      return isDiscardable(status, facts) ? 'discarded' : null;
    case 'cancel':
      return isCancelable(status, facts) ? 'canceled' : null;
    case 'error':
      return isFinished(status, facts) ? null : 'errored';
  }
}

/** Finished for good: nothing will happen to the run any more. */
export function isFinished(status: RunStatus, facts: RunFacts): boolean {
  if (TERMINAL_STATUSES.has(status)) return true;
  return status === 'applied' && stageEnteredFrom('applied', facts) === undefined;
}

export function isRunStatus(value: string): value is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(value);
}
