/**
 * The statuses of task stages and task results (HCP Terraform's names), shared by the server
 * (src/taskstages), the console and the pipeline client. Dependency-free.
 */
export const RESULT_STATUSES = ['pending', 'running', 'passed', 'failed', 'errored', 'canceled', 'unreachable'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const STAGE_STATUSES = ['pending', 'running', 'passed', 'failed', 'awaiting_override', 'errored', 'canceled', 'unreachable'] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

/** A result in one of these never changes again (a final status is never changed or written twice, even across restarts). */
export const FINAL_RESULT_STATUSES: readonly ResultStatus[] = ['passed', 'failed', 'errored', 'canceled', 'unreachable'];
export const OPEN_RESULT_STATUSES: readonly ResultStatus[] = ['pending', 'running'];

/** A stage in one of these may still change: its tasks run, or a person decides (`awaiting_override`). */
export const OPEN_STAGE_STATUSES: readonly StageStatus[] = ['pending', 'running', 'awaiting_override'];

/** A stage in one of these is over: only an override moves one on, and only from `awaiting_override`. */
export const FINAL_STAGE_STATUSES: readonly StageStatus[] = STAGE_STATUSES.filter((status) => !OPEN_STAGE_STATUSES.includes(status));

/** For clients, which read statuses as strings. */
export function isFinalStageStatus(status: string): boolean {
  return (FINAL_STAGE_STATUSES as readonly string[]).includes(status);
}

/** The stage status that waits for a person: override, or discard the run. */
export const AWAITING_OVERRIDE = 'awaiting_override' satisfies StageStatus;
