import { JOB_LANES, type JobLane } from './job-lanes.js';

/**
 * What a PostgreSQL job notification says (migration 008's trigger): `<lane> <run_at>`, when the earliest
 * job the statement inserted in that lane is due. Answers undefined when it says nothing usable (an
 * empty payload, or a catch-up call without one): then every lane looks at the table.
 */
export function parseJobNotification(payload: string | undefined): ReadonlyMap<JobLane, Date> | undefined {
  const [lane, runAt] = (payload ?? '').split(' ');
  if (!JOB_LANES.includes(lane as JobLane) || runAt === undefined) return undefined;
  const at = new Date(runAt);
  return Number.isNaN(at.getTime()) ? undefined : new Map([[lane as JobLane, at]]);
}
