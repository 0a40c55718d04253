import type { LoadResult } from './measure.js';

/** The JSON line bench/wrk/report.lua prints when wrk is done (times in µs, as wrk measures them). */
const FIELDS = ['durationUs', 'requests', 'p50Us', 'p99Us', 'connectErrors', 'readErrors', 'writeErrors', 'timeouts', 'statusErrors', 'generatorCpuSeconds'] as const;
type WrkReport = Record<(typeof FIELDS)[number], number>;

/**
 * The result of one wrk run, from its stdout: the last report line (wrk's own summary above it is for
 * people). wrk counts a response as failed when its status is 400 or more, which is what non2xx holds here:
 * none of the bench's requests is answered with 1xx or 3xx. Socket errors and timeouts count as errors.
 */
export function parseWrkReport(stdout: string): LoadResult {
  const line = stdout
    .split('\n')
    .reverse()
    .find((text) => text.startsWith('{"wrkReport":'));
  if (!line) throw new Error(`wrk printed no report line (did the script load bench/wrk/report.lua?):\n${stdout.slice(-500)}`);
  const report = JSON.parse(line) as Partial<WrkReport>;
  const missing = FIELDS.filter((field) => typeof report[field] !== 'number' || !Number.isFinite(report[field]));
  if (missing.length > 0) throw new Error(`wrk's report line lacks ${missing.join(', ')}: ${line}`);
  const r = report as WrkReport;
  return {
    rps: r.durationUs > 0 ? r.requests / (r.durationUs / 1e6) : 0,
    total: r.requests,
    p50: r.p50Us / 1000,
    p99: r.p99Us / 1000,
    non2xx: r.statusErrors,
    errors: r.connectErrors + r.readErrors + r.writeErrors + r.timeouts,
    generatorCpuMs: r.generatorCpuSeconds * 1000,
  };
}
