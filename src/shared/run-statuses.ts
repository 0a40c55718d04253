/**
 * The statuses of runs, plans and applies (HCP Terraform's names), shared by the server (src/runs), the
 * console (src/web) and the pipeline client (src/pipeline): the one place that spells them. Dependency-free,
 * so a browser bundle and the standalone pipeline client can import it.
 */
export const RUN_STATUSES = [
  'pending',
  'plan_queued',
  'pre_plan_running',
  'pre_plan_completed',
  'pre_plan_awaiting_decision',
  'planning',
  'planned',
  'post_plan_running',
  'post_plan_completed',
  'post_plan_awaiting_decision',
  'planned_and_finished',
  'confirmed',
  'pre_apply_running',
  'pre_apply_completed',
  'pre_apply_awaiting_decision',
  'apply_queued',
  'applying',
  'applied',
  'post_apply_running',
  'post_apply_completed',
  'post_apply_awaiting_decision',
  'discarded',
  'errored',
  'canceled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses nothing leaves. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['planned_and_finished', 'post_apply_completed', 'discarded', 'errored', 'canceled']);

/** Terminal statuses of a run that did not do what it was asked: it errored, or someone stopped it. */
export const UNSUCCESSFUL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['errored', 'canceled', 'discarded']);

/** Plans and applies follow their run; one that will never run becomes `unreachable`. */
export const PHASE_STATUSES = ['pending', 'queued', 'running', 'finished', 'errored', 'canceled', 'unreachable'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

/** A phase in one of these has started or will start; the others never change again. */
export const OPEN_PHASE_STATUSES: ReadonlySet<PhaseStatus> = new Set(['pending', 'queued', 'running']);

/** For clients, which read statuses as strings: whether `status` is terminal (an unknown status is not). */
export function isTerminalRunStatus(status: string): boolean {
  return (TERMINAL_RUN_STATUSES as ReadonlySet<string>).has(status);
}

export function isUnsuccessfulRunStatus(status: string): boolean {
  return (UNSUCCESSFUL_RUN_STATUSES as ReadonlySet<string>).has(status);
}

/** Whether a phase in `status` is over (finished, errored, canceled, unreachable). */
export function isFinalPhaseStatus(status: string): boolean {
  return (PHASE_STATUSES as readonly string[]).includes(status) && !(OPEN_PHASE_STATUSES as ReadonlySet<string>).has(status);
}
