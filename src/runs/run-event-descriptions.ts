import type { Actor } from '../record/actor.js';
import { stageOfStatus, type RunStatus } from './run-state-machine.js';

const STAGE_WORDS: Record<string, string> = { pre_plan: 'pre-plan', post_plan: 'post-plan', pre_apply: 'pre-apply', post_apply: 'post-apply' };

/** `post_plan` → `post-plan`: how the record names a stage. */
export function stageWords(stage: string): string {
  return STAGE_WORDS[stage] ?? stage;
}

/**
 * What a run's event says when the run enters `status` (run events' `description`). `actor` is whoever
 * decided it (a confirmation, a discard, a cancel, a pipeline's claim or report); `reason` says why an
 * errored run errored. Pure, so the wording is tested without a database.
 */
export function describeRunStatus(status: RunStatus, actor: Actor | null | undefined, reason?: string): string {
  const by = actor ? ` by ${actor.name}` : '';
  const inStage = stageOfStatus(status);
  if (inStage) {
    const stage = stageWords(inStage.stage);
    if (inStage.phase === 'running') return `The ${stage} task stage started`;
    if (inStage.phase === 'completed') return `The ${stage} task stage is done`;
    return `Waiting for an override of the ${stage} task stage`;
  }
  switch (status) {
    case 'pending':
      return `Queued${by}; waiting for its turn in the workspace`;
    case 'plan_queued':
      return 'The run took its turn: the plan is queued';
    case 'planning':
      return `Planning${actor ? ` (claimed${by})` : ''}`;
    case 'planned':
      return `Planned${actor ? ` (reported${by})` : ''}`;
    case 'planned_and_finished':
      return 'Planned and finished: nothing to apply';
    case 'confirmed':
      return actor ? `Apply confirmed${by}` : 'Apply confirmed by auto-apply';
    case 'apply_queued':
      return 'The apply is queued';
    case 'applying':
      return `Applying${actor ? ` (claimed${by})` : ''}`;
    case 'applied':
      return `Applied${actor ? ` (reported${by})` : ''}`;
    case 'discarded':
      return `Discarded${by}`;
    case 'canceled':
      return `Canceled${by}`;
    case 'errored':
      return `Errored: ${reason ?? 'the run errored'}`;
    // Worded above (stageOfStatus); listed so that a new status does not compile without its words.
    case 'pre_plan_running':
    case 'pre_plan_completed':
    case 'pre_plan_awaiting_decision':
    case 'post_plan_running':
    case 'post_plan_completed':
    case 'post_plan_awaiting_decision':
    case 'pre_apply_running':
    case 'pre_apply_completed':
    case 'pre_apply_awaiting_decision':
    case 'post_apply_running':
    case 'post_apply_completed':
    case 'post_apply_awaiting_decision':
      return status;
  }
}
