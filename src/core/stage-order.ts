/** The run stages that can trigger run tasks, in the order a run passes them. */
export type TaskStageName = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';

/** The run stages that can trigger run tasks, in the order a run passes them (seed 1). */
export const TASK_STAGE_ORDER: readonly TaskStageName[] = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];

/** Stages that only apply runs reach; a plan-only run gets none of these (CONTRACT 8). */
export const APPLY_STAGES: ReadonlySet<TaskStageName> = new Set(['pre_apply', 'post_apply']);

export const DEFAULT_STAGES: readonly TaskStageName[] = ['post_plan'];

export function isTaskStageName(value: string): value is TaskStageName {
  return (TASK_STAGE_ORDER as readonly string[]).includes(value);
}

/** Distinct stages in run order. */
export function inRunOrder(stages: Iterable<TaskStageName>): TaskStageName[] {
  const set = new Set(stages);
  return TASK_STAGE_ORDER.filter((stage) => set.has(stage));
}
