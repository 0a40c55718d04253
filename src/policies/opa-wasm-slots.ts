import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WasmLimits } from './opa-wasm-abi.js';
import type { WasmOutcome } from './opa-wasm.worker.js';

/**
 * The worker threads policies are evaluated in (opa-wasm.worker.ts), one per busy policy slot: the caller holds
 * one of the node's fair slots (fair-slots.ts) while it uses a worker, so there are never more than
 * TEAMSTAGE_POLICY_CONCURRENCY. An evaluation past its time limit has its thread ended outright
 * (`Worker.terminate` stops Wasm mid-loop) and the next evaluation starts a new one; so does one whose thread
 * died. The JavaScript heap of a worker is capped (it holds the input's bytes and the answer, at most 4 MiB of JSON); the
 * policy's own memory is the Wasm memory, capped by its maximum (opa-wasm-abi.ts).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 };
/** An idle worker ends after this long and gives its memory back. */
const IDLE_MS = 30_000;
/** A worker that has not started within this long is given up (the evaluation falls to OPA's process). */
const START_MS = 30_000;

const here = fileURLToPath(import.meta.url);
const WORKER_FILE = path.join(path.dirname(here), `opa-wasm.worker${path.extname(here)}`);

/** Under tsx a worker does not inherit its loader: it registers it, then loads the TypeScript file (as plan-json-checker.ts). */
function startWorker(): Worker {
  const options = { resourceLimits: WORKER_LIMITS, name: 'opa-wasm' };
  if (!WORKER_FILE.endsWith('.ts')) return new Worker(WORKER_FILE, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

export type SlotOutcome = WasmOutcome | { kind: 'timeout' };

class WasmWorker {
  readonly worker = startWorker();
  busy = false;
  dead = false;
  private idle: NodeJS.Timeout | undefined;
  private pending: ((outcome: SlotOutcome) => void) | undefined;
  private started = false;
  private readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;

  constructor(private readonly onEnd: (worker: WasmWorker, timedOut: boolean) => void) {
    this.idle = setTimeout(() => this.end(undefined), IDLE_MS).unref();
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
    this.worker.on('message', (message: { ready?: true; outcome?: WasmOutcome }) => {
      if (message.ready) {
        this.started = true;
        this.markReady();
      } else if (message.outcome) this.settle(message.outcome);
    });
    this.worker.on('error', (error) => this.end({ kind: 'failed', message: error.message }));
    this.worker.on('exit', (code) => this.end({ kind: 'failed', message: `the policy worker ended (exit code ${code})` }));
    // Never what keeps the process alive (the evaluation waiting for it does that); after the listeners, which ref it.
    this.worker.unref();
  }

  /** `longRunning`: called once the evaluation has taken half its limit (it may well be ended: a spare is started). */
  run(module: WebAssembly.Module, inputPath: string, limits: WasmLimits, timeoutMs: number, longRunning: () => void): Promise<SlotOutcome> {
    clearTimeout(this.idle);
    this.busy = true;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let halfway: NodeJS.Timeout | undefined;
      this.pending = (outcome) => {
        clearTimeout(timer);
        clearTimeout(halfway);
        resolve(outcome);
      };
      // The time limit counts from the worker's start, not its loading; a worker that never starts is given up.
      if (!this.started) timer = setTimeout(() => this.end({ kind: 'failed', message: 'the policy worker did not start' }), START_MS);
      void this.ready.then(() => {
        if (this.dead || !this.pending) return;
        clearTimeout(timer);
        // Ended, not asked: a policy in a loop never reads a message.
        timer = setTimeout(() => this.end({ kind: 'timeout' }), timeoutMs);
        halfway = setTimeout(longRunning, timeoutMs / 2);
        this.worker.postMessage({ id: 0, module, inputPath, limits });
      });
    });
  }

  private settle(outcome: SlotOutcome): void {
    const pending = this.pending;
    this.pending = undefined;
    this.busy = false;
    pending?.(outcome);
    if (!this.dead) this.idle = setTimeout(() => this.end(undefined), IDLE_MS).unref();
  }

  private end(outcome: SlotOutcome | undefined): void {
    clearTimeout(this.idle);
    if (!this.dead) {
      this.dead = true;
      this.onEnd(this, outcome?.kind === 'timeout');
      void this.worker.terminate();
    }
    if (outcome) this.settle(outcome);
  }
}

export class WasmSlots {
  private readonly workers: WasmWorker[] = [];
  private closed = false;

  /** `slots`: TEAMSTAGE_POLICY_CONCURRENCY, the most workers there ever are. */
  constructor(private readonly slots: number) {}

  /** Evaluates in an idle worker (the caller holds a policy slot, so one is idle or may be started). */
  evaluate(module: WebAssembly.Module, inputPath: string, limits: WasmLimits, timeoutMs: number): Promise<SlotOutcome> {
    const worker = this.idleWorker() ?? this.start();
    return worker.run(module, inputPath, limits, timeoutMs, () => this.spare());
  }

  private idleWorker(): WasmWorker | undefined {
    return this.workers.find((candidate) => !candidate.busy && !candidate.dead);
  }

  /**
   * A worker started ahead for the evaluation that follows one likely to be ended at its limit: a thread takes
   * tens of milliseconds to start (more on a busy machine), a slot should not sit idle meanwhile. At most one
   * beyond the slots; unused, it ends after IDLE_MS.
   */
  private spare(): void {
    if (!this.closed && !this.idleWorker() && this.workers.length <= this.slots) this.start();
  }

  private start(): WasmWorker {
    const worker = new WasmWorker((ended, timedOut) => {
      this.workers.splice(this.workers.indexOf(ended), 1);
      // A worker ended at the time limit is replaced at once (unless a spare is there already); an idle or crashed one is not.
      if (timedOut) this.spare();
    });
    this.workers.push(worker);
    return worker;
  }

  /** Ends every worker (at shutdown, and in tests). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((worker) => worker.worker.terminate()));
  }
}
