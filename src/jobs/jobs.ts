import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/database.js';
import type { LaneLimits } from './job-lanes.js';
import { JobQueue, type Executor, type NewJob } from './job-queue.js';
import { parseJobNotification } from './job-notification.js';
import { JobWorker, type JobHandler, type StopReport } from './job-worker.js';
import { listenForJobs } from './pg-wakeup.js';

export interface JobsOptions {
  /** Slots of the work lane (database-only jobs: run progress, settling, overrides, timeouts). */
  concurrency: number;
  /** Of those, at most this many for one organization (workLane); all of them when omitted. */
  workPerOrganization?: number;
  /** The delivery lane (jobs that wait on run task services); DEFAULT_DELIVERY_LANE when omitted. */
  delivery?: LaneLimits;
  /** The policy lane (evaluations with OPA); DEFAULT_POLICY_LANE when omitted. */
  policy?: LaneLimits;
  pollMs: number;
  leaseMs: number;
  databaseUrl: string;
}

/** The delivery lane when not configured (config.ts documents the same defaults). */
export const DEFAULT_DELIVERY_LANE: LaneLimits = { concurrency: 128, perOrganization: 32 };

/**
 * The work lane: `concurrency` slots, at most `perOrganization` of them for one organization, claimed in turn
 * across organizations (fair-claim.ts). By default an organization may take every slot, so a tenant alone
 * runs at full speed; another organization's job still goes before the next of its backlog as soon as a slot
 * frees, so it waits for one work job (milliseconds), however many the other has queued (issue 34).
 */
export function workLane(concurrency: number, perOrganization: number = concurrency): LaneLimits {
  return { concurrency, perOrganization: Math.max(1, Math.min(perOrganization, concurrency)) };
}

/**
 * The policy lane for a node with `slots` OPA processes, `perOrganization` of them per organization: room for
 * four times the slots of evaluations in progress (those beyond the slots wait for one, fairly, in memory:
 * cheap), each organization at most its share.
 */
export function policyLane(slots: number, perOrganization: number): LaneLimits {
  return { concurrency: 4 * slots, perOrganization, renewLeases: true };
}

/**
 * Durable background work for the rest of the code: `register` a handler per kind, `enqueue` inside
 * the transaction that makes the job necessary. Every node runs a worker; the database hands out jobs.
 */
export class Jobs {
  readonly queue: JobQueue;
  readonly worker: JobWorker;
  private listener: { stop(): Promise<void> } | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly options: JobsOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queue = new JobQueue(handle.db, handle.dialect, (due) => this.worker.wake(due));
    this.worker = new JobWorker(this.queue, {
      lanes: { work: workLane(options.concurrency, options.workPerOrganization), delivery: options.delivery ?? DEFAULT_DELIVERY_LANE, policy: options.policy ?? policyLane(2, 1) },
      pollMs: options.pollMs,
      leaseMs: options.leaseMs,
      log,
    });
  }

  register(kind: string, handler: JobHandler): void {
    this.worker.register(kind, handler);
  }

  enqueue(executor: Executor, job: NewJob): Promise<void> {
    return this.queue.enqueue(executor, job);
  }

  /** Several jobs in one statement where possible (see JobQueue.enqueueAll). */
  enqueueAll(executor: Executor, jobs: readonly NewJob[]): Promise<void> {
    return this.queue.enqueueAll(executor, jobs);
  }

  /** See JobQueue.cancel. */
  cancel(executor: Executor, dedupeKeys: readonly string[]): Promise<void> {
    return this.queue.cancel(executor, dedupeKeys);
  }

  start(): void {
    if (this.handle.dialect === 'postgres') {
      this.listener = listenForJobs(this.options.databaseUrl, (payload) => this.worker.wake(parseJobNotification(payload)), this.log);
    }
    // On PostgreSQL the worker's statements use connections of their own (background-pool.ts): its lane
    // loops start here, and all they run inherits the scope.
    const startWorker = () => this.worker.start();
    if (this.handle.inBackground) this.handle.inBackground(startWorker);
    else startWorker();
  }

  /** See JobWorker.stop: `graceMs` for running jobs, then they are abandoned and handed back. */
  stop(graceMs?: number): Promise<StopReport> {
    // One stop: a second call (the app's onClose after main's stop began) waits for the first, so what
    // stops after the jobs (the task request dispatcher) never goes while a job still runs.
    this.stopped ??= (async () => {
      const report = await this.worker.stop(graceMs);
      await this.listener?.stop();
      return report;
    })();
    return this.stopped;
  }

  private stopped: Promise<StopReport> | undefined;
}
