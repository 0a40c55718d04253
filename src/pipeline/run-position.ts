/**
 * Where a run stands from the pipeline's point of view, read from its status and the few facts that
 * decide whether a status is a resting point or passes by on its own (which task stages it has,
 * whether it is confirmable now). The server's own state machine lives in src/runs; this client
 * may not import it (it is a layer of its own that talks HTTP), so it reads the statuses as any API
 * client would, with the names and lists of src/shared.
 */
import { isUnsuccessfulRunStatus } from '../shared/run-statuses.js';
import { TASK_STAGE_ORDER } from '../shared/stage-order.js';
import { AWAITING_OVERRIDE } from '../shared/task-stage-statuses.js';

export interface StageSnapshot {
  id: string;
  stage: string;
  status: string;
}

export interface RunSnapshot {
  id: string;
  status: string;
  /** `actions.is-confirmable`: the server's own word that the run waits for a confirmation now. */
  confirmable: boolean;
  planId: string | undefined;
  applyId: string | undefined;
  stages: StageSnapshot[];
  /** The included plan's attributes (counts), when the server sent them. */
  plan: Record<string, any> | undefined;
  /** A pending run: how many runs of its workspace are ahead of it (a locked workspace counts as one). */
  positionInQueue: number | undefined;
  workspaceId: string | undefined;
  /** `meta.wait-token`: names this state, for the next waiting read. */
  waitToken: string | undefined;
}

export type Position =
  /** The server is working (a stage runs, the run is queued or moves on by itself): poll again. */
  | { kind: 'in-progress' }
  | { kind: 'plan-claimable' }
  | { kind: 'planning' }
  /** The plan passed its stages; someone (the pipeline's apply-start, or a person) confirms the apply. */
  | { kind: 'awaiting-confirmation' }
  | { kind: 'apply-claimable' }
  | { kind: 'applying' }
  /** Applied, and its post-apply stage (if any) passed. */
  | { kind: 'applied' }
  /** Ended after its plan: no changes, or a plan-only run. Nothing to apply. */
  | { kind: 'planned-and-finished' }
  | { kind: 'awaiting-override'; stage: string }
  | { kind: 'failed' };

/** `post_plan_awaiting_decision` → `post_plan`. */
const AWAITING_DECISION = new RegExp(`^(${TASK_STAGE_ORDER.join('|')})_awaiting_decision$`);

export function positionOf(run: RunSnapshot): Position {
  const status = run.status;
  const has = (stage: string) => run.stages.some((candidate) => candidate.stage === stage);
  if (isUnsuccessfulRunStatus(status)) return { kind: 'failed' };
  const awaiting = AWAITING_DECISION.exec(status);
  if (awaiting) {
    // Just overridden: the stage is already running/passed and the run follows a moment later.
    const stage = run.stages.find((candidate) => candidate.stage === awaiting[1]);
    if (stage && stage.status !== AWAITING_OVERRIDE) return { kind: 'in-progress' };
    return { kind: 'awaiting-override', stage: awaiting[1]! };
  }
  switch (status) {
    case 'plan_queued':
      return has('pre_plan') ? { kind: 'in-progress' } : { kind: 'plan-claimable' };
    case 'pre_plan_completed':
      return { kind: 'plan-claimable' };
    case 'planning':
      return { kind: 'planning' };
    case 'planned':
    case 'post_plan_completed':
      // Otherwise the server moves on by itself: into the post-plan stage, to planned_and_finished
      // (no changes, plan-only), or to an auto-apply's confirmation.
      return run.confirmable ? { kind: 'awaiting-confirmation' } : { kind: 'in-progress' };
    case 'planned_and_finished':
      return { kind: 'planned-and-finished' };
    case 'apply_queued':
      return { kind: 'apply-claimable' };
    case 'applying':
      return { kind: 'applying' };
    case 'applied':
      return has('post_apply') ? { kind: 'in-progress' } : { kind: 'applied' };
    case 'post_apply_completed':
      return { kind: 'applied' };
    default:
      // pending, *_running, confirmed, pre_apply_completed, and any status this client does not know yet.
      return { kind: 'in-progress' };
  }
}

/** The run document (`GET /runs/:id?include=task_stages,plan`) as a snapshot. */
export function snapshotOf(document: any): RunSnapshot {
  const data = document.data;
  const attributes = data.attributes ?? {};
  const included: any[] = Array.isArray(document.included) ? document.included : [];
  const planId = data.relationships?.plan?.data?.id as string | undefined;
  const plan = included.find((resource) => resource.type === 'plans' && resource.id === planId);
  const stages = included
    .filter((resource) => resource.type === 'task-stages')
    .map((resource) => ({ id: resource.id, stage: resource.attributes?.stage, status: resource.attributes?.status }));
  return {
    id: data.id,
    status: attributes.status,
    confirmable: attributes.actions?.['is-confirmable'] === true,
    planId,
    applyId: data.relationships?.apply?.data?.id,
    stages,
    plan: plan?.attributes,
    positionInQueue: typeof attributes['position-in-queue'] === 'number' ? attributes['position-in-queue'] : undefined,
    workspaceId: data.relationships?.workspace?.data?.id,
    waitToken: typeof document.meta?.['wait-token'] === 'string' ? document.meta['wait-token'] : undefined,
  };
}
