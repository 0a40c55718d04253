import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { EventLoopTurns } from './event-loop-turns.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';

export type JobHandler = (payload: any) => Promise<void>;

export interface JobWorkerOptions {
  /** Jobs handled at once by this node (delivery waits on remote services, so this is more than the cores). */
  concurrency: number;
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
 * Claims due jobs and runs their handlers. Handlers must be idempotent: after a crash between the work
 * and the row's deletion, the job runs again on whichever node claims it next.
 */
export class JobWorker {
  readonly nodeId = `node-${randomBytes(6).toString('hex')}`;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeResolve: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private wakeRequested = false;
  /** Finished jobs whose rows are deleted together (see run()). */
  private completed: string[] = [];
  private flushing: Promise<void> | undefined;
  /** Deletes of finished jobs still on their way: stop() waits for them before it releases leases. */
  private readonly deleting = new Set<Promise<void>>();
  /** Jobs start one per event-loop turn, so requests are served between them (event-loop-turns.ts). */
  private readonly turns = new EventLoopTurns();

  constructor(
    private readonly queue: JobQueue,
    private readonly options: JobWorkerOptions,
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Something is due now: stop sleeping. */
  wake = (): void => {
    this.wakeRequested = true;
    this.wakeResolve?.();
  };

  /** Stops claiming, lets running handlers finish (bounded), then gives back every lease this node holds. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loopDone;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    await this.flushing;
    await this.flushCompleted();
    // A delete that a scheduled flush began must land first: releasing the lease before it would make
    // the delete (which only the lease holder may do) miss, and a finished job would run again.
    await Promise.allSettled([...this.deleting]);
    await this.queue.releaseAll(this.nodeId).catch(() => {});
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.wakeRequested = false;
      let claimed: ClaimedJob[] = [];
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          claimed = await this.queue.claim(this.nodeId, free, this.options.leaseMs);
        } catch (error) {
          this.options.log.warn({ err: error }, 'claiming jobs failed; will retry');
        }
      }
      for (const job of claimed) this.track(this.run(job));
      if (!this.running) break;
      if (claimed.length === free && free > 0) continue;
      await this.sleep(await this.sleepMs());
    }
  }

  private async sleepMs(): Promise<number> {
    if (this.wakeRequested) return 0;
    if (this.inFlight.size >= this.options.concurrency) return this.options.pollMs;
    try {
      const next = await this.queue.nextRunAt();
      if (next) return Math.max(0, Math.min(this.options.pollMs, next.getTime() - Date.now() + 5));
    } catch {
      /* poll again later */
    }
    return this.options.pollMs;
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.wakeRequested || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeResolve = () => {
        clearTimeout(this.wakeTimer);
        this.wakeResolve = undefined;
        resolve();
      };
      this.wakeTimer = setTimeout(() => this.wakeResolve?.(), ms);
    });
  }

  private track(promise: Promise<void>): void {
    this.inFlight.add(promise);
    void promise.finally(() => {
      this.inFlight.delete(promise);
      this.wake();
    });
  }

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

  private async run(job: ClaimedJob): Promise<void> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler registered for job kind '${job.kind}'`);
      await this.turns.next();
      await handler(job.payload);
      this.completed.push(job.id);
      this.scheduleFlush();
    } catch (error) {
      this.options.log.error({ err: error, jobId: job.id, kind: job.kind, attempts: job.attempts }, 'job failed; will retry');
      await this.queue.retryLater(this.nodeId, job.id, retryDelayMs(job.attempts), String(error)).catch(() => {});
    }
  }
}
