import type { StatusTimestamps } from '../core/status-timestamps.js';
import { TERMINAL_STATUSES, type RunStatus } from './run-state-machine.js';

/**
 * HCP's force-cancel: a second, forceful cancel, allowed only after a normal cancel was asked for and a cool-off
 * has passed since (HCP shows when as `force-cancel-available-at`). HCP's cancel is a request a worker may not
 * honour; Teamstage's cancel ends the run at once (a pipeline learns it at its next report), so a run it canceled is
 * finished and never force-cancelable: force-cancel then answers 409 with why, and the rule stays HCP's for any
 * run a cancel was asked of and that is still not finished.
 */
export const FORCE_CANCEL_COOL_OFF_SECONDS = 600;

/** When force-cancel becomes available: the cool-off after the cancel request (`canceled-at`), or null before any. */
export function forceCancelAvailableAt(timestamps: StatusTimestamps): string | null {
  const canceledAt = timestamps['canceled-at'];
  if (!canceledAt) return null;
  const at = Date.parse(canceledAt);
  return Number.isNaN(at) ? null : new Date(at + FORCE_CANCEL_COOL_OFF_SECONDS * 1000).toISOString();
}

/** Why the run cannot be force-canceled now, or null when it can (`actions.is-force-cancelable`). */
export function forceCancelRefusal(status: RunStatus, timestamps: StatusTimestamps, now: Date): string | null {
  const availableAt = forceCancelAvailableAt(timestamps);
  if (availableAt === null) return 'a run is force-canceled only after a cancel (POST /runs/:id/actions/cancel)';
  if (now.getTime() < Date.parse(availableAt)) return `force-cancel is available from ${availableAt}`;
  if (TERMINAL_STATUSES.has(status)) return `the cancel already ended it (it is ${status})`;
  return null;
}
