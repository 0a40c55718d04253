import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { JOB_LANES, type JobLane, type LaneSettings } from './job-lanes.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';
import { LaneLoop } from './lane-loop.js';

/**
 * `stop` aborts when the node stops and the grace for running jobs is over: a handler waiting on something
 * outside (a run task request) gives up and throws, without recording anything, and its job is released
 * for another node to run from the start (handlers are idempotent).
 */
export type JobHandler = (payload: any, context: { stop: AbortSignal }) => Promise<void>;

/** What a node's stop did with the jobs it was running (logged by main.ts). */
export interface StopReport {
  /** Jobs that were running when the stop began. */
  running: number;
  /** Of those, still running when the grace ended: abandoned, their leases handed back. */
  abandoned: number;
  /** Leases handed back (abandoned jobs and finished ones not yet deleted). */
  released: number;
}

export interface JobWorkerOptions {
  /** Slots of each lane on this node, and the delivery lane's share per organization (job-lanes.ts). */
  lanes: LaneSettings;
  /** Catch-up poll: covers missed notifications and jobs that became due. */
  pollMs: number;
  /** How long a claim lasts; after a crash, the node's jobs are free again once it expires. */
  leaseMs: number;
  log: FastifyBaseLogger;
}

/** Backoff for a handler that threw: a bug or a database hiccup, never a reason to drop the job. */
function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 250 * 2 ** Math.min(attempts, 8));
}

/**
 * Claims due jobs and runs their handlers, one loop per lane (lane-loop.ts) under one node id. Handlers
 * must be idempotent: after a crash between the work and the row's deletion, the job runs again on
 * whichever node claims it next.
 */
export class JobWorker {
  readonly nodeId = `node-${randomBytes(6).toString('hex')}`;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly lanes: LaneLoop[];
  private running = false;
  /** Finished jobs whose rows are deleted together (see run()). */
  private completed: string[] = [];
  private flushing: Promise<void> | undefined;
  /** Deletes of finished jobs still on their way: stop() waits for them before it releases leases. */
  private readonly deleting = new Set<Promise<void>>();

  constructor(
    private readonly queue: JobQueue,
    private readonly options: JobWorkerOptions,
  ) {
    this.lanes = JOB_LANES.map(
      (lane) =>
        new LaneLoop(queue, {
          lane,
          limits: options.lanes[lane],
          nodeId: this.nodeId,
          pollMs: options.pollMs,
          leaseMs: options.leaseMs,
          log: options.log,
          run: (job) => this.run(job),
        }),
    );
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const lane of this.lanes) lane.start();
  }

  /**
   * Jobs were enqueued: `due` says when the earliest of each lane becomes due; without it (a notification
   * from another node, which does not say) every lane looks now.
   */
  wake = (due?: ReadonlyMap<JobLane, Date>): void => {
    for (const lane of this.lanes) {
      if (!due) lane.wakeUninformed();
      else {
        const at = due.get(lane.lane);
        if (at) lane.wakeAt(at);
      }
    }
  };

  /**
   * Stops claiming, lets running handlers finish for at most `graceMs`, then abandons the rest (their stop
   * signal aborts; they get up to a second to give up) and gives back every lease this node holds at once,
   * so another node takes those jobs now instead of when the lease would have run out.
   */
  async stop(graceMs = 3_000): Promise<StopReport> {
    const running = this.lanes.reduce((sum, lane) => sum + lane.inFlightCount, 0);
    if (!this.running) return { running: 0, abandoned: 0, released: 0 };
    this.running = false;
    await Promise.all(this.lanes.map((lane) => lane.stop(graceMs)));
    const abandoned = this.lanes.reduce((sum, lane) => sum + lane.inFlightCount, 0);
    if (abandoned > 0) {
      this.stopping.abort();
      await Promise.all(this.lanes.map((lane) => lane.settled(1_000)));
    }
    await this.flushing;
    await this.flushCompleted();
    // A delete that a scheduled flush began must land first: releasing the lease before it would make
    // the delete (which only the lease holder may do) miss, and a finished job would run again.
    await Promise.allSettled([...this.deleting]);
    const released = await this.queue.releaseAll(this.nodeId).catch(() => 0);
    return { running, abandoned, released };
  }

  /** Aborts when a stop abandons the jobs still running (see JobHandler). */
  private readonly stopping = new AbortController();

  /**
   * Finished jobs are deleted together rather than one commit each (on SQLite with synchronous=FULL every
   * commit is an fsync; on PostgreSQL every statement is a round trip). One delete is on its way at a
   * time: jobs that finish meanwhile wait for it and go in the next one, so the busier the node, the
   * more each delete carries (group commit). Until then the row stays leased to this node; after a
   * crash in between, the job runs again, which handlers are built for.
   */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = this.flushUntilEmpty();
  }

  private async flushUntilEmpty(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.completed.length > 0) await this.flushCompleted();
    // Cleared in the same turn as the last look at `completed`: a job finishing later schedules anew.
    this.flushing = undefined;
  }

  private async flushCompleted(): Promise<void> {
    const ids = this.completed;
    this.completed = [];
    if (ids.length === 0) return;
    const deleted = this.queue.complete(this.nodeId, ...ids).catch((error: unknown) => {
      // The leases expire and the jobs run again: harmless, as for a crash.
      this.options.log.warn({ err: error, jobs: ids.length }, 'could not delete finished jobs');
    });
    this.deleting.add(deleted);
    try {
      await deleted;
    } finally {
      this.deleting.delete(deleted);
    }
  }

  private readonly failureListeners: Array<(kind: string) => void> = [];

  private readonly takeoverListeners: Array<(kind: string) => void> = [];

  /** Tells `listener` of every job taken over from an unfinished claim (its kind), for metrics. */
  onTakeover(listener: (kind: string) => void): void {
    this.takeoverListeners.push(listener);
  }

  /** Tells `listener` of every failed attempt (its kind), for metrics. */
  onFailure(listener: (kind: string) => void): void {
    this.failureListeners.push(listener);
  }

  /** Runs the job's handler; answers when the job is due again if the handler failed. */
  private async run(job: ClaimedJob): Promise<Date | void> {
    const handler = this.handlers.get(job.kind);
    // A claim past the first whose predecessor recorded no failure: that claim's lease ran out unfinished,
    // so its node died, hung or was stopped mid-job. Worth an operator's look (issue 31).
    if (job.attempts > 1 && job.lastError === null) {
      this.options.log.warn(
        { jobId: job.id, kind: job.kind, attempts: job.attempts, organization: job.organizationName || undefined, ...payloadIds(job.payload) },
        'job taken over: an earlier claim ended unfinished (its node stopped or died)',
      );
      for (const listener of this.takeoverListeners) listener(job.kind);
    }
    try {
      if (!handler) throw new Error(`no handler registered for job kind '${job.kind}'`);
      await handler(job.payload, { stop: this.stopping.signal });
      this.completed.push(job.id);
      this.scheduleFlush();
    } catch (error) {
      if (this.stopping.signal.aborted) {
        // Abandoned by a stop: no failure recorded; stop() hands the lease back and another node runs it.
        this.options.log.info({ jobId: job.id, kind: job.kind, ...payloadIds(job.payload) }, 'job abandoned at stop: handed back to another node');
        return;
      }
      this.options.log.error({ err: error, jobId: job.id, kind: job.kind, attempts: job.attempts, organization: job.organizationName || undefined, ...payloadIds(job.payload) }, 'job failed; will retry');
      for (const listener of this.failureListeners) listener(job.kind);
      const delayMs = retryDelayMs(job.attempts);
      await this.queue.retryLater(this.nodeId, job.id, delayMs, String(error)).catch(() => {});
      return new Date(Date.now() + delayMs);
    }
  }
}

/** The ids a job's payload names (runId, resultId, stageId, …), for log lines: never anything else of it. */
function payloadIds(payload: unknown): Record<string, string> {
  if (!payload || typeof payload !== 'object') return {};
  return Object.fromEntries(Object.entries(payload).filter(([key, value]) => key.endsWith('Id') && typeof value === 'string')) as Record<string, string>;
}
