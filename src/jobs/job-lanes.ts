/**
 * A node runs its jobs in lanes, each with slots of its own, so that one kind of wait cannot starve
 * another kind of work:
 *
 * - `work`: jobs that only touch the database (run progress, settling, overrides, timeouts). They finish
 *   in milliseconds, so a few slots keep up with any load, and nothing in them waits on the network. They
 *   are claimed in turn across organizations too (jobs.ts `workLane`): a tenant that queues hundreds of runs
 *   makes another's run wait for one job to finish, not for its backlog.
 * - `delivery`: jobs that wait on a remote service, for up to the request timeout per attempt. Their
 *   slots cost a socket, not a core, so there are more of them, and each organization may hold only a
 *   share of them (`perOrganization`), claimed in turn across organizations (fair-claim.ts): a tenant
 *   whose endpoints hang waits on its own share, never on everyone's.
 * - `policy`: policy evaluations (issue 34). Each runs OPA for up to the policy time limit per policy, so
 *   they must not hold the work lane's slots either, and each organization has a share of them, claimed in
 *   turn like deliveries; inside, the node's OPA processes are shared the same way (policies/fair-slots.ts).
 *   An evaluation of many policies may outlive a lease, so this lane renews the leases of what it runs.
 */
export const JOB_LANES = ['work', 'delivery', 'policy'] as const;
export type JobLane = (typeof JOB_LANES)[number];

export interface LaneLimits {
  /** Jobs of this lane one node runs at once. */
  concurrency: number;
  /** At most this many of them for one organization on one node; unset: no share, jobs go in time order. */
  perOrganization?: number;
  /** Renew the leases of running jobs (every third of a lease) while they run: for jobs that may outlive one. */
  renewLeases?: boolean;
}

export type LaneSettings = Record<JobLane, LaneLimits>;
