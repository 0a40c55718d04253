import { createHash } from 'node:crypto';
import { Errors } from '../core/errors.js';
import type { RunView } from './run-view.js';

/**
 * Long polling for a run (`GET /runs/:id?wait=SECONDS&wait-token=TOKEN`): the read answers as soon as what a
 * pipeline waits on differs from the state it last saw (the run's status, its task stages' statuses, its
 * place in the workspace's queue), or after `wait` seconds with the run as it is. A waiting read holds no
 * database connection and polls nothing: the database's change signals wake it (db/run-change-signals.ts:
 * NOTIFY on PostgreSQL, across nodes; temporary triggers on SQLite), and then it reads the run once more.
 * A slow re-check every few seconds covers a signal lost with a dropped connection.
 */
export interface RunWaitLimits {
  /** TEAMSTAGE_RUN_WAIT_MAX: the longest a read may wait; longer asks are shortened to it. */
  maxSeconds: number;
  /** TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL: waiting reads one token may have open at once (429 beyond). */
  perPrincipal: number;
}

export interface RunChangeSubscriptions {
  subscribe(workspaceId: string, listener: () => void): () => void;
}

/** What the client compares: changes exactly when something a pipeline waits on changed. */
export function runWaitToken(view: RunView): string {
  const state = [view.row.status, String(view.positionInQueue), ...view.stages.map((stage) => `${stage.id}=${stage.status}`)].join('|');
  return createHash('sha256').update(state).digest('base64url').slice(0, 16);
}

/**
 * A page of a workspace's runs as a page watching them compares it: changes when a run joins or leaves the
 * page or the list's total, or when any run on it changes as runWaitToken sees it (status, stages, queue place).
 */
export function runListWaitToken(list: { items: readonly RunView[]; total: number }): string {
  const state = [String(list.total), ...list.items.map((view) => `${view.row.id}:${runWaitToken(view)}`)].join('|');
  return createHash('sha256').update(state).digest('base64url').slice(0, 16);
}

/** `?wait=` as seconds within the bound, or a 422. */
export function waitSeconds(raw: string, limits: RunWaitLimits): number {
  const seconds = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw Errors.invalidRunWait();
  return Math.min(seconds, limits.maxSeconds);
}

export class RunWaits {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly signals: RunChangeSubscriptions,
    readonly limits: RunWaitLimits,
    private readonly recheckMs = 5000,
  ) {}

  private readonly stopping = new AbortController();

  /** The node stops (SIGTERM): every open wait answers now, so closing the server waits for none of them. */
  stop(): void {
    this.stopping.abort();
  }

  /** Waiting reads open now, all principals (metrics, tests). */
  get waiting(): number {
    let total = 0;
    for (const count of this.open.values()) total += count;
    return total;
  }

  /**
   * Reads (with `read`) until the token differs from `seen` (undefined: from the first read's), `seconds`
   * pass, or `aborted` fires (the client went away); answers the last read.
   */
  async until<T extends { run: RunView }>(
    principal: string,
    workspaceId: string,
    seen: string | undefined,
    seconds: number,
    read: () => Promise<T>,
    clientGone: AbortSignal,
    first?: T,
  ): Promise<T> {
    return this.untilToken(principal, workspaceId, seen, seconds, read, (result) => runWaitToken(result.run), clientGone, first);
  }

  /**
   * The same wait for anything read from one workspace's runs (a page of its run list: runs/run-list-wait.ts),
   * compared by `tokenOf`. The same per-principal bound counts both.
   */
  async untilToken<T>(
    principal: string,
    workspaceId: string,
    seen: string | undefined,
    seconds: number,
    read: () => Promise<T>,
    tokenOf: (result: T) => string,
    clientGone: AbortSignal,
    first?: T,
  ): Promise<T> {
    // The node stopping ends every wait too: it answers what it has, and the client asks again (another node).
    const aborted = AbortSignal.any([clientGone, this.stopping.signal]);
    const count = this.open.get(principal) ?? 0;
    if (count >= this.limits.perPrincipal) throw Errors.tooManyRunWaits(this.limits.perPrincipal);
    this.open.set(principal, count + 1);
    let wake: () => void = () => {};
    let signaled = false;
    // Subscribed before the first read, so a change between that read and the wait is not missed.
    const unsubscribe = this.signals.subscribe(workspaceId, () => {
      signaled = true;
      wake();
    });
    const deadline = Date.now() + seconds * 1000;
    try {
      // `first` was read before subscribing: a change in between would be missed, so only a changed one answers at once.
      let result = first !== undefined && seen !== undefined && tokenOf(first) !== seen ? first : await read();
      const baseline = seen ?? tokenOf(result);
      for (;;) {
        if (tokenOf(result) !== baseline || aborted.aborted) return result;
        const left = deadline - Date.now();
        if (left <= 0) return result;
        if (!signaled) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(left, this.recheckMs));
            const done = () => {
              clearTimeout(timer);
              aborted.removeEventListener('abort', done);
              resolve();
            };
            wake = done;
            aborted.addEventListener('abort', done, { once: true });
          });
          wake = () => {};
        }
        signaled = false;
        if (aborted.aborted) return result;
        result = await read();
      }
    } finally {
      unsubscribe();
      const left = (this.open.get(principal) ?? 1) - 1;
      if (left > 0) this.open.set(principal, left);
      else this.open.delete(principal);
    }
  }
}
