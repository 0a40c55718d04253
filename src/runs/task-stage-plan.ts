import type { TaskStageName } from '../db/schema.js';
import { APPLY_STAGES, TASK_STAGE_ORDER } from '../shared/stage-order.js';

/** An enabled workspace task as a new run sees it. */
export interface AttachedTask {
  workspaceTaskId: string;
  taskId: string;
  taskName: string;
  taskUrl: string;
  enforcementLevel: 'advisory' | 'mandatory';
  stages: readonly TaskStageName[];
}

export interface PlannedStage {
  stage: TaskStageName;
  /** One pending result per task, in attachment order. */
  tasks: AttachedTask[];
}

/**
 * The task stages a new run gets: one per stage value with at least one enabled
 * workspace task, in run order, each with one result per such task. A plan-only run never reaches
 * the apply stages, so it gets none. Pure; the caller passes only enabled tasks.
 */
export function planTaskStages(tasks: readonly AttachedTask[], planOnly: boolean): PlannedStage[] {
  return TASK_STAGE_ORDER.filter((stage) => !(planOnly && APPLY_STAGES.has(stage)))
    .map((stage) => ({ stage, tasks: tasks.filter((task) => task.stages.includes(stage)) }))
    .filter((planned) => planned.tasks.length > 0);
}
