/** Background jobs. One area of the database schema; src/db/schema.ts gathers them. */

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  /** Not before this time (ISO). */
  run_at: string;
  attempts: number;
  /** The node holding the lease, until `locked_until`; an expired lease is free to claim again. */
  locked_by: string | null;
  locked_until: string | null;
  /** At most one pending job per key (e.g. one timeout per result). */
  dedupe_key: string | null;
  last_error: string | null;
  created_at: string;
  /** Which of the node's lanes runs it (jobs/job-lanes.ts); 'work' by default. */
  lane: string;
  /** The organization the job works for, to share a lane fairly; '' when none (migration 008). */
  organization_name: string;
}
