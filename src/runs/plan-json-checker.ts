import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PlanJsonBounds, PlanJsonCheck } from './plan-json-scanner.js';

/** What a worker may use: its heap is capped, so that no document can grow the process. */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8, stackSizeMb: 2 };
/** Pieces read from the spooled file at a time. */
const PIECE_BYTES = 64 * 1024;
/** A worker left idle this long ends, and gives its memory back; the next upload starts another. */
const IDLE_MS = 10_000;

export interface PlanJsonCheckerOptions {
  /** Checks at once (each in its own worker thread). */
  concurrency?: number;
  /** How long an idle worker stays (tests shorten it). */
  idleMs?: number;
}

/**
 * The worker's file beside this module, in the form this module runs as: `.ts` under tsx (tests), `.js`
 * compiled (dist/src), `.mjs` bundled (dist/bundle: scripts/bundle.mjs builds it as a second entry).
 */
const here = fileURLToPath(import.meta.url);
const WORKER_FILE = path.join(path.dirname(here), `plan-json-check.worker${path.extname(here)}`);

/** Under tsx a worker does not inherit its loader: the worker registers it, then loads the TypeScript file. */
function startWorker(workerData: unknown): Worker {
  const options = { workerData, resourceLimits: WORKER_LIMITS };
  if (!WORKER_FILE.endsWith('.ts')) return new Worker(WORKER_FILE, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

interface Pending {
  resolve(check: PlanJsonCheck): void;
  reject(error: Error): void;
}

/** One worker thread and the check it runs (one at a time). */
class CheckWorker {
  private readonly worker: Worker;
  private pending: { id: number; answer: Pending } | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  dead = false;

  constructor(
    workerData: unknown,
    private readonly idleMs: number,
    private readonly onExit: (worker: CheckWorker) => void,
  ) {
    this.worker = startWorker(workerData);
    // Never what keeps the process alive: a request waiting for an answer does that.
    this.worker.unref();
    this.worker.on('message', (message: { id: number; check?: PlanJsonCheck; error?: string }) => {
      const pending = this.pending;
      if (!pending || pending.id !== message.id) return;
      this.pending = undefined;
      if (message.check) pending.answer.resolve(message.check);
      else pending.answer.reject(new Error(`the plan JSON check failed: ${message.error}`));
      this.idleTimer = setTimeout(() => this.retire(), this.idleMs).unref();
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(Object.assign(new Error(`the plan JSON check ended without an answer (exit code ${code})`), { code: 'ERR_WORKER_EXITED' })));
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  check(id: number, file: string): Promise<PlanJsonCheck> {
    clearTimeout(this.idleTimer);
    return new Promise((resolve, reject) => {
      this.pending = { id, answer: { resolve, reject } };
      this.worker.postMessage({ id, file });
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  /**
   * Leaves the pool at once, then ends: marked dead before the thread is told to stop, so that no check
   * is handed to a worker on its way out (its exit would fail that check).
   */
  private retire(): void {
    if (this.dead || this.pending) return;
    this.dead = true;
    this.onExit(this);
    void this.worker.terminate();
  }

  private fail(error: Error): void {
    clearTimeout(this.idleTimer);
    const pending = this.pending;
    this.pending = undefined;
    pending?.answer.reject(error);
    if (!this.dead) {
      this.dead = true;
      this.onExit(this);
    }
  }
}

/**
 * Checks spooled plan JSON uploads off the event loop, in worker threads (plan-json-check.worker.ts): at
 * most `concurrency` at once (the other uploads wait their turn, on disk), so that uploads together never
 * take more than that many cores or workers' memory. Workers stay for the next upload and end after
 * IDLE_MS unused (starting one costs tens of milliseconds compiled, about a second under tsx).
 */
export class PlanJsonChecker {
  private readonly workers: CheckWorker[] = [];
  private readonly waiting: Array<() => void> = [];
  private nextId = 0;

  private readonly concurrency: number;
  private readonly idleMs: number;

  constructor(
    private readonly bounds: PlanJsonBounds,
    options: PlanJsonCheckerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  async check(file: string): Promise<PlanJsonCheck> {
    let worker = this.idleWorker();
    while (!worker) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      worker = this.idleWorker();
    }
    try {
      return await worker.check(++this.nextId, file);
    } finally {
      this.waiting.shift()?.();
    }
  }

  /** Ends every worker (at shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private idleWorker(): CheckWorker | undefined {
    const idle = this.workers.find((worker) => !worker.busy && !worker.dead);
    if (idle) return idle;
    if (this.workers.length >= this.concurrency) return undefined;
    const started = new CheckWorker({ bounds: this.bounds, pieceBytes: PIECE_BYTES }, this.idleMs, (ended) => {
      this.workers.splice(this.workers.indexOf(ended), 1);
      this.waiting.shift()?.();
    });
    this.workers.push(started);
    return started;
  }
}
