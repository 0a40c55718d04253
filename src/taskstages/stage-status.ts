/**
 * The status vocabulary of task stages and results (seed 3.2, 3.3) and the one rule that turns the
 * results of a stage into the stage's status (CONTRACT 8). Pure functions of plain data; no I/O.
 */
export const RESULT_STATUSES = ['pending', 'running', 'passed', 'failed', 'errored', 'canceled', 'unreachable'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const STAGE_STATUSES = [
  'pending', 'running', 'passed', 'failed', 'awaiting_override', 'errored', 'canceled', 'unreachable',
] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

export const ENFORCEMENT_LEVELS = ['advisory', 'mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

export const STAGE_NAMES = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** A result in one of these never changes again (CONTRACT 9: "a final status is never changed or written twice"). */
export const FINAL_RESULT_STATUSES: readonly ResultStatus[] = ['passed', 'failed', 'errored', 'canceled', 'unreachable'];
export const OPEN_RESULT_STATUSES: readonly ResultStatus[] = ['pending', 'running'];

/**
 * A stage in one of these is settled: the run was told about it (its advance job). Only
 * `awaiting_override` can still move (override → running → passed, or discard → failed, cancel → canceled).
 */
export const SETTLED_STAGE_STATUSES: readonly StageStatus[] = ['passed', 'failed', 'errored', 'canceled', 'unreachable', 'awaiting_override'];
export const FINAL_STAGE_STATUSES: readonly StageStatus[] = ['passed', 'failed', 'errored', 'canceled', 'unreachable'];
export const OPEN_STAGE_STATUSES: readonly StageStatus[] = ['pending', 'running', 'awaiting_override'];

export function isFinalResultStatus(status: string): boolean {
  return (FINAL_RESULT_STATUSES as readonly string[]).includes(status);
}

export function isFinalStageStatus(status: string): boolean {
  return (FINAL_STAGE_STATUSES as readonly string[]).includes(status);
}

export interface ResultFacts {
  status: ResultStatus;
  enforcementLevel: EnforcementLevel;
}

/**
 * The status of a stage whose results are as given, or `running` while any result is still open.
 *
 * - a canceled result (the run was canceled or discarded) cancels the stage;
 * - every result passed, or only advisory results did not pass: `passed`;
 * - a mandatory result failed: `awaiting_override` (a person may let the run go on);
 * - else a mandatory result errored: `errored`; else one was unreachable: `unreachable`.
 *
 * A stage with no results passes: there is nothing to wait for.
 */
export function deriveStageStatus(results: readonly ResultFacts[]): 'running' | 'passed' | 'awaiting_override' | 'errored' | 'unreachable' | 'canceled' {
  if (results.some((result) => !isFinalResultStatus(result.status))) return 'running';
  if (results.some((result) => result.status === 'canceled')) return 'canceled';
  const mandatory = results.filter((result) => result.enforcementLevel === 'mandatory');
  if (mandatory.some((result) => result.status === 'failed')) return 'awaiting_override';
  if (mandatory.some((result) => result.status === 'errored')) return 'errored';
  if (mandatory.some((result) => result.status === 'unreachable')) return 'unreachable';
  return 'passed';
}

/** `running` → `running-at`: the keys of `status-timestamps`. */
export function timestampKey(status: string): string {
  return `${status.replace(/_/g, '-')}-at`;
}

/** Adds the timestamp of a status just entered; a status entered again keeps its first time. */
export function withTimestamp(stored: string | null | undefined, status: string, at: string, refresh = false): string {
  const timestamps = parseTimestamps(stored);
  const key = timestampKey(status);
  if (refresh || timestamps[key] === undefined) timestamps[key] = at;
  return JSON.stringify(timestamps);
}

export function parseTimestamps(stored: string | null | undefined): Record<string, string> {
  if (!stored) return {};
  try {
    const parsed = JSON.parse(stored) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}
