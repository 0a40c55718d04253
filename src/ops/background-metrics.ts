import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BackgroundStatsRepository, JobKindStats } from './background-stats.repository.js';

/** Scrapes closer together than this share one read of the tables, so /metrics cannot be made to load the database. */
const SNAPSHOT_MS = 5_000;

export interface BackgroundObservers {
  /** One run task request's end: its outcome and how long the service took to answer. */
  delivery(outcome: string, seconds: number): void;
  /** A job whose handler failed (it will be retried). */
  jobFailed(kind: string): void;
  /** A job this node took over from a claim that ended unfinished (its node died, hung or was stopped). */
  jobTakenOver(kind: string): void;
}

/**
 * Background work in /metrics: the job table (queued, running, failing, the age of the oldest due job, by
 * kind), runs and policy evaluations by status, read from the database at scrape time (the tables are the truth, across every
 * node); deliveries and job failures counted by this node as they happen.
 */
export function registerBackgroundMetrics(registry: Registry, stats: BackgroundStatsRepository): BackgroundObservers {
  type Counts = Array<{ status: string; count: number }>;
  let snapshot: Promise<{ at: number; jobs: JobKindStats[]; runs: Counts; policyEvaluations: Counts }> | undefined;
  const read = () => {
    const fresh = snapshot;
    if (fresh) return fresh;
    const now = new Date();
    const taken = Promise.all([stats.jobs(now.toISOString()), stats.runsByStatus(), stats.policyEvaluationsByStatus()]).then(
      ([jobs, runs, policyEvaluations]) => ({ at: now.getTime(), jobs, runs, policyEvaluations }),
    );
    snapshot = taken;
    // Forget it after a while, or at once if the read failed, so the next scrape reads again.
    taken.then(
      () => setTimeout(() => (snapshot === taken ? (snapshot = undefined) : undefined), SNAPSHOT_MS).unref(),
      () => (snapshot = undefined),
    );
    return taken;
  };

  new Gauge({
    name: 'teamstage_jobs',
    help: 'Background jobs in the job table, by kind and state (due: waiting for a worker; scheduled: due later; running: leased by a node)',
    labelNames: ['kind', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()).jobs) {
        this.set({ kind: row.kind, state: 'due' }, row.due);
        this.set({ kind: row.kind, state: 'scheduled' }, row.scheduled);
        this.set({ kind: row.kind, state: 'running' }, row.running);
      }
    },
  });
  new Gauge({
    name: 'teamstage_jobs_failing',
    help: 'Background jobs whose last attempt failed and that wait for a retry, by kind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()).jobs) this.set({ kind: row.kind }, row.failing);
    },
  });
  new Gauge({
    name: 'teamstage_job_oldest_due_age_seconds',
    help: 'How long the oldest due job of each kind has waited for a worker (0 when none waits); growing means the workers fall behind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      const { at, jobs } = await read();
      for (const row of jobs) this.set({ kind: row.kind }, row.oldestDueAt ? Math.max(0, (at - Date.parse(row.oldestDueAt)) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'teamstage_runs',
    help: 'Runs by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()).runs) this.set({ status: row.status }, row.count);
    },
  });
  new Gauge({
    name: 'teamstage_policy_evaluations',
    help: 'Policy evaluations by status (passed, failed, errored, overridden, …)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()).policyEvaluations) this.set({ status: row.status }, row.count);
    },
  });
  const jobFailures = new Counter({
    name: 'teamstage_job_failures_total',
    help: 'Background job attempts whose handler failed on this node (each is retried), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const takeovers = new Counter({
    name: 'teamstage_job_takeovers_total',
    help: 'Background jobs this node took over from a claim that ended unfinished (a node died, hung or was stopped mid-job), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'teamstage_task_deliveries_total',
    help: 'Run task requests sent by this node, by outcome (accepted: 200; rejected: another status; network_error: no answer)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const deliverySeconds = new Histogram({
    name: 'teamstage_task_delivery_duration_seconds',
    help: 'Time a run task service took to answer a request (or to fail), by outcome',
    labelNames: ['outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    delivery(outcome, seconds) {
      deliveries.inc({ outcome });
      deliverySeconds.observe({ outcome }, seconds);
    },
    jobFailed(kind) {
      jobFailures.inc({ kind });
    },
    jobTakenOver(kind) {
      takeovers.inc({ kind });
    },
  };
}
