import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { evaluateWasm, NeedsOpa, WasmAnswerTooLarge, WasmMemoryExceeded, type WasmLimits } from './opa-wasm-abi.js';

/**
 * The worker of opa-wasm-slots.ts: one policy evaluation at a time, answering each `{ id, module, inputPath,
 * limits }` with `{ id, outcome }`. The input file is read once per evaluation of a set (its policies follow
 * each other with the same file). The main thread ends this thread outright when an evaluation passes its time.
 *
 * While it evaluates, the thread is named `opa-wasm` (Linux, /proc/thread-self/comm), `opa-idle` otherwise:
 * what `top -H` shows, and how the isolation figures count busy policy slots without asking the server.
 */
export type WasmOutcome =
  | { kind: 'answer'; json: string }
  | { kind: 'needs-opa'; why: string }
  | { kind: 'memory' }
  | { kind: 'output' }
  | { kind: 'failed'; message: string };

export interface WasmRequest {
  id: number;
  module: WebAssembly.Module;
  inputPath: string;
  limits: WasmLimits;
}

/** The last input read, by its file's identity (a scratch path may come again for another evaluation's file). */
let lastInput: { key: string; bytes: Uint8Array } | undefined;

function name(comm: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', comm);
  } catch {
    // Not Linux: the name is only a convenience.
  }
}

function evaluate(request: WasmRequest): WasmOutcome {
  const stat = statSync(request.inputPath, { bigint: true });
  const key = `${request.inputPath}\0${stat.ino}\0${stat.mtimeNs}\0${stat.size}`;
  if (lastInput?.key !== key) lastInput = { key, bytes: readFileSync(request.inputPath) };
  try {
    return { kind: 'answer', json: evaluateWasm(request.module, lastInput.bytes, request.limits) };
  } catch (error) {
    if (error instanceof NeedsOpa) return { kind: 'needs-opa', why: error.message };
    if (error instanceof WasmMemoryExceeded) return { kind: 'memory' };
    if (error instanceof WasmAnswerTooLarge) return { kind: 'output' };
    return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

name('opa-idle');
// Started (under tsx a worker takes a second to load): the time limit of an evaluation counts from here.
parentPort!.postMessage({ ready: true });
parentPort!.on('message', (request: WasmRequest) => {
  name('opa-wasm');
  let outcome: WasmOutcome;
  try {
    outcome = evaluate(request);
  } catch (error) {
    outcome = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  } finally {
    name('opa-idle');
  }
  parentPort!.postMessage({ id: request.id, outcome });
});
