import type { TaskStageName } from '../db/schema.js';
import { APPLY_STAGES, TASK_STAGE_ORDER } from '../shared/stage-order.js';
import type { EnforcementLevel } from '../shared/enforcement-levels.js';

/** An enabled workspace task as a new run sees it. */
export interface AttachedTask {
  workspaceTaskId: string;
  taskId: string;
  taskName: string;
  taskUrl: string;
  enforcementLevel: EnforcementLevel;
  stages: readonly TaskStageName[];
  /** Distinct overriders a failed mandatory result needs (default 1). */
  requiredApprovals?: number;
}

export interface PlannedStage {
  stage: TaskStageName;
  /** One pending result per task, in attachment order. */
  tasks: AttachedTask[];
  /** The stage also holds the run's policy evaluation (post_plan, when a policy set applies). */
  policies: boolean;
}

/** Where policies are evaluated: after the plan, on its JSON (HCP's OPA policies). */
export const POLICY_STAGE: TaskStageName = 'post_plan';

/**
 * The task stages a new run gets: one per stage value with at least one enabled
 * workspace task, in run order, each with one result per such task; and the post-plan stage whenever a
 * policy set applies to the workspace (`policiesApply`), tasks or not. A plan-only run never reaches
 * the apply stages, so it gets none. Pure; the caller passes only enabled tasks.
 */
export function planTaskStages(tasks: readonly AttachedTask[], planOnly: boolean, policiesApply = false): PlannedStage[] {
  return TASK_STAGE_ORDER.filter((stage) => !(planOnly && APPLY_STAGES.has(stage)))
    .map((stage) => ({ stage, tasks: tasks.filter((task) => task.stages.includes(stage)), policies: policiesApply && stage === POLICY_STAGE }))
    .filter((planned) => planned.tasks.length > 0 || planned.policies);
}
