import type { FastifyBaseLogger } from 'fastify';
import { EventLoopTurns } from './event-loop-turns.js';
import type { JobLane, LaneLimits } from './job-lanes.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';

export interface LaneLoopOptions {
  lane: JobLane;
  limits: LaneLimits;
  nodeId: string;
  pollMs: number;
  leaseMs: number;
  log: FastifyBaseLogger;
  /** Runs one claimed job to its end (handler, then completion or retry); never throws. Answers when a job put back for a retry is due. */
  run: (job: ClaimedJob) => Promise<Date | void>;
}

/**
 * One lane of a node's worker (job-lanes.ts): claims the lane's due jobs while it has free slots, starts
 * them, and sleeps until a job finishes, one is enqueued, the next one is due or the catch-up poll.
 */
export class LaneLoop {
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeResolve: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private wakeRequested = false;
  /** A wake-up is on its way to the sleeping loop (see wake). */
  private wakeScheduled = false;
  /** While sleeping: when the sleep ends. */
  private sleepEnd: number | undefined;
  /**
   * The earliest time a job of this lane is known to become due (an enqueue said so, or the last look at
   * the table found it), until the loop has woken for it.
   */
  private dueHint: number | undefined;
  /**
   * The next sleep must look at the table for the next due job, since something this lane was not told
   * about may have changed it: at start, after a sleep that ran to its end (the catch-up poll, or a due
   * time that has passed, so the next one is unknown), and after a wake-up that said nothing. Woken by an
   * enqueue (which says when its jobs are due) or by a job of its own finishing, the lane already knows
   * the next due time: looking again would cost a statement per wake-up, 1.5 per fan-out result.
   */
  private tableLookDue = true;
  /** What each organization runs in this lane now, for its share (lanes with `perOrganization`). */
  private readonly held = new Map<string, number>();
  /** A claim is on its way, with the counts as they were when it started. */
  private claiming = false;
  /**
   * Jobs start one per event-loop turn, so requests are served between them (event-loop-turns.ts). Each
   * lane has its own turns: a burst of deliveries starting never queues run progress behind it.
   */
  private readonly turns = new EventLoopTurns();
  /** The ids of the jobs running now, for a lane that renews their leases (LaneLimits.renewLeases). */
  private readonly runningIds = new Set<string>();
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: JobQueue,
    private readonly options: LaneLoopOptions,
  ) {}

  get lane(): JobLane {
    return this.options.lane;
  }


  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
    if (this.options.limits.renewLeases) {
      // A third of a lease: two renewals may fail (a database hiccup) before another node may take a job over.
      this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
      this.renewTimer.unref();
    }
  }

  private async renewLeases(): Promise<void> {
    try {
      await this.queue.renewLeases(this.options.nodeId, [...this.runningIds], new Date(Date.now() + this.options.leaseMs));
    } catch (error) {
      this.options.log.warn({ err: error, lane: this.options.lane }, 'renewing job leases failed; will retry');
    }
  }

  /**
   * Something is due now: stop sleeping, at the end of this event-loop turn. Jobs that finish or are
   * enqueued in the same turn (several answers read in one poll for I/O) then share one claim instead
   * of a claim each: on the fan-out, most delivery claims took one job, two statements apiece.
   */
  wake = (): void => {
    this.wakeRequested = true;
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      // Unless a loop turn that began since has served the request already (it clears the flag first).
      if (this.wakeRequested) this.wakeResolve?.();
    });
  };

  /** Jobs may have changed in ways nobody said (a wake-up without a lane and time): claim, and look at the table again. */
  wakeUninformed(): void {
    this.tableLookDue = true;
    this.wake();
  }

  /**
   * A job of this lane was enqueued that becomes due at `at`: wake now if it is due, else make sure the
   * loop sleeps no longer than that. A deadline an hour away (every run task result enqueues two) then
   * costs no claim and no look at the table.
   */
  wakeAt(at: Date): void {
    const due = at.getTime();
    if (due <= Date.now()) return this.wake();
    this.hintDue(due);
    if (this.sleepEnd !== undefined && due < this.sleepEnd) this.armTimer(due - Date.now() + 5);
  }

  private hintDue(due: number): void {
    if (this.dueHint === undefined || due < this.dueHint) this.dueHint = due;
  }

  /** Stops claiming and waits (at most `timeoutMs`) for the jobs it started. */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loopDone;
    await this.settled(timeoutMs);
    clearInterval(this.renewTimer);
  }

  /** Jobs this lane still runs. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Waits (at most `timeoutMs`) until no job of this lane runs. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  private async loop(): Promise<void> {
    const { concurrency, perOrganization } = this.options.limits;
    const shares = perOrganization === undefined ? undefined : { perOrganization, held: this.held };
    while (this.running) {
      this.wakeRequested = false;
      let claimed: ClaimedJob[] = [];
      const free = concurrency - this.inFlight.size;
      const claimedAt = new Date();
      if (this.dueHint !== undefined && this.dueHint <= claimedAt.getTime()) {
        this.dueHint = undefined;
        this.tableLookDue = true;
      }
      if (free > 0) {
        this.claiming = true;
        try {
          claimed = await this.queue.claim(this.options.nodeId, free, this.options.leaseMs, this.options.lane, shares);
        } catch (error) {
          this.options.log.warn({ err: error, lane: this.options.lane }, 'claiming jobs failed; will retry');
        } finally {
          this.claiming = false;
        }
      }
      for (const job of claimed) this.track(job, this.runInTurn(job));
      if (!this.running) break;
      if (claimed.length === free && free > 0) continue;
      await this.sleep(await this.sleepMs(claimedAt));
    }
  }

  private async runInTurn(job: ClaimedJob): Promise<void> {
    await this.turns.next();
    const retryAt = await this.options.run(job);
    if (retryAt) this.wakeAt(retryAt);
  }

  private async sleepMs(claimedAt: Date): Promise<number> {
    if (this.wakeRequested) return 0;
    if (this.inFlight.size >= this.options.limits.concurrency) return this.options.pollMs;
    if (this.tableLookDue) {
      try {
        this.tableLookDue = false;
        const next = await this.queue.nextRunAt(this.options.lane, claimedAt);
        if (next) this.hintDue(next.getTime());
      } catch {
        this.tableLookDue = true; // poll again later
      }
    }
    // Also a job enqueued meanwhile (its transaction may not have committed when the table was read).
    let ms = this.options.pollMs;
    if (this.dueHint !== undefined) ms = Math.min(ms, this.dueHint - Date.now() + 5);
    return Math.max(0, ms);
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.wakeRequested || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeResolve = () => {
        clearTimeout(this.wakeTimer);
        this.wakeResolve = undefined;
        this.sleepEnd = undefined;
        resolve();
      };
      this.armTimer(ms);
    });
  }

  /** (Re)sets the end of the current sleep to `ms` from now. */
  private armTimer(ms: number): void {
    clearTimeout(this.wakeTimer);
    this.sleepEnd = Date.now() + ms;
    this.wakeTimer = setTimeout(() => {
      this.tableLookDue = true;
      this.wakeResolve?.();
    }, ms);
  }

  /**
   * Counts the job in its lane and its organization's share until it ends. Its end wakes the lane only if
   * a job may be waiting for the slot it frees: the lane was full, the organization at its share, or a
   * claim is on its way with the counts from before. Otherwise the last claim took every due job, and
   * what the job enqueued wakes the lane by itself.
   */
  private track(job: ClaimedJob, promise: Promise<void>): void {
    const organization = job.organizationName;
    this.held.set(organization, (this.held.get(organization) ?? 0) + 1);
    this.inFlight.add(promise);
    this.runningIds.add(job.id);
    void promise.finally(() => {
      this.runningIds.delete(job.id);
      const { concurrency, perOrganization } = this.options.limits;
      const held = this.held.get(organization)!;
      const slotAwaited = this.claiming || this.inFlight.size >= concurrency || (perOrganization !== undefined && held >= perOrganization);
      if (held === 1) this.held.delete(organization);
      else this.held.set(organization, held - 1);
      this.inFlight.delete(promise);
      if (slotAwaited) this.wake();
    });
  }
}
