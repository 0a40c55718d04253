import type { RunsTable } from '../db/schema.js';

/**
 * A run with its workspace's organization: the jobs a status change enqueues (the next run of the queue, a
 * claim deadline, the next step) go in that organization's share of the work lane (jobs/job-lanes.ts).
 */
export type RunInOrganization = RunsTable & { organizationName: string };
