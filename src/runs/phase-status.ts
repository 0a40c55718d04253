import { OPEN_PHASE_STATUSES, type PhaseStatus } from '../shared/run-statuses.js';
import type { RunStatus } from './run-state-machine.js';

export { PHASE_STATUSES, type PhaseStatus } from '../shared/run-statuses.js';

/**
 * Plans and applies follow their run (HCP's plan and apply resources): a pure function from the run's
 * new status to the statuses of its two phases. A phase that will never run becomes `unreachable`.
 */
export interface Phases {
  plan: PhaseStatus;
  apply: PhaseStatus;
}

export function isOpenPhase(status: PhaseStatus): boolean {
  return OPEN_PHASE_STATUSES.has(status);
}

/** How an open phase ends when its run stops early: a started phase shares the run's fate, one that never started is unreachable. */
function stopped(phase: PhaseStatus, fate: 'errored' | 'canceled' | 'unreachable'): PhaseStatus {
  if (!isOpenPhase(phase)) return phase;
  if (phase === 'pending') return 'unreachable';
  if (fate === 'unreachable') return 'unreachable';
  return fate;
}

/** The phases after the run entered `runStatus`. A final phase (finished, errored, canceled, unreachable) never changes again. */
export function phasesAfter(runStatus: RunStatus, previous: Phases): Phases {
  const next = followRun(runStatus, previous);
  return {
    plan: isOpenPhase(previous.plan) ? next.plan : previous.plan,
    apply: isOpenPhase(previous.apply) ? next.apply : previous.apply,
  };
}

/** The run statuses followRun reacts to; entering any other leaves both phases as they are. */
const PHASE_MOVING_STATUSES: ReadonlySet<RunStatus> = new Set([
  'plan_queued', 'planning', 'planned', 'planned_and_finished', 'apply_queued', 'applying', 'applied', 'errored', 'canceled', 'discarded',
]);

/**
 * Whether entering `runStatus` may change a phase. When it cannot, a status change need not read the
 * phases at all (run-transitions.ts); a unit test checks this against phasesAfter for every status.
 */
export function mayMovePhases(runStatus: RunStatus): boolean {
  return PHASE_MOVING_STATUSES.has(runStatus);
}

function followRun(runStatus: RunStatus, previous: Phases): Phases {
  switch (runStatus) {
    case 'plan_queued':
      return { ...previous, plan: 'queued' };
    case 'planning':
      return { ...previous, plan: 'running' };
    case 'planned':
      return { ...previous, plan: 'finished' };
    case 'planned_and_finished':
      return { plan: 'finished', apply: 'unreachable' };
    case 'apply_queued':
      return { ...previous, apply: 'queued' };
    case 'applying':
      return { ...previous, apply: 'running' };
    case 'applied':
      return { ...previous, apply: 'finished' };
    case 'errored':
      return { plan: stopped(previous.plan, previous.plan === 'running' ? 'errored' : 'unreachable'), apply: stopped(previous.apply, previous.apply === 'running' ? 'errored' : 'unreachable') };
    case 'canceled':
      return { plan: stopped(previous.plan, 'canceled'), apply: stopped(previous.apply, 'canceled') };
    case 'discarded':
      return { plan: stopped(previous.plan, 'unreachable'), apply: stopped(previous.apply, 'unreachable') };
    // Statuses that move no phase (PHASE_MOVING_STATUSES leaves them out); listed so a new status must choose.
    case 'pending':
    case 'pre_plan_running':
    case 'pre_plan_completed':
    case 'pre_plan_awaiting_decision':
    case 'post_plan_running':
    case 'post_plan_completed':
    case 'post_plan_awaiting_decision':
    case 'confirmed':
    case 'pre_apply_running':
    case 'pre_apply_completed':
    case 'pre_apply_awaiting_decision':
    case 'post_apply_running':
    case 'post_apply_completed':
    case 'post_apply_awaiting_decision':
      return previous;
  }
}
