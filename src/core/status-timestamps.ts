/**
 * `status-timestamps`: when a run, phase, configuration version, task stage or task result entered each
 * status. Stored as JSON text; this is the one place that reads and writes that text, so every resource
 * shows the same keys and a damaged value reads as "no timestamps" rather than failing the request.
 */
export type StatusTimestamps = Record<string, string>;

/** `post_plan_running` → `post-plan-running-at`: the key of a status. */
export function timestampKey(status: string): string {
  return `${status.replace(/_/g, '-')}-at`;
}

export function parseTimestamps(stored: string | null | undefined): StatusTimestamps {
  if (!stored) return {};
  try {
    const parsed = JSON.parse(stored) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StatusTimestamps) : {};
  } catch {
    return {};
  }
}

/**
 * Stamps each of `statuses` with `at`. Runs and phases show when a status was last entered (HCP does), so by
 * default a status entered again gets the new time; task stages and results keep their first time unless
 * `keepFirst` is false. Keys already present keep their place, so the stored text only grows at the end.
 */
export function withTimestamps(stored: string | null | undefined, statuses: readonly string[], at: string, keepFirst = false): string {
  const timestamps = parseTimestamps(stored);
  for (const status of statuses) {
    const key = timestampKey(status);
    if (!keepFirst || timestamps[key] === undefined) timestamps[key] = at;
  }
  return JSON.stringify(timestamps);
}

/** Adds the timestamp of a status just entered; a status entered again keeps its first time unless `refresh`. */
export function withTimestamp(stored: string | null | undefined, status: string, at: string, refresh = false): string {
  return withTimestamps(stored, [status], at, !refresh);
}
