/**
 * The run stages that can trigger run tasks, in the order a run passes them. The one place that
 * spells the order: validation, sorting, the plan-only rule and the task request all read it from here.
 */
export const TASK_STAGE_ORDER = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] as const;
export type TaskStageName = (typeof TASK_STAGE_ORDER)[number];

/** Stages that only apply runs reach; a plan-only run gets none of these. */
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

/** A sort comparator: earlier stage first (an unknown name sorts first, as indexOf gives -1). */
export function compareStages(a: string, b: string): number {
  return (TASK_STAGE_ORDER as readonly string[]).indexOf(a) - (TASK_STAGE_ORDER as readonly string[]).indexOf(b);
}

/** Whether a plan exists when a run reaches this stage: from `post_plan` on. */
export function stageHasPlan(stage: string): boolean {
  return compareStages(stage, 'post_plan') >= 0;
}
