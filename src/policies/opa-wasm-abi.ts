/**
 * One evaluation of a policy compiled by `opa build -t wasm`, through OPA's documented Wasm ABI (1.2: one
 * `opa_eval` call with the input as raw JSON bytes, parsed inside the module). Runs in a policy worker thread
 * (opa-wasm.worker.ts), never on the server's event loop.
 *
 * Written against the ABI rather than with `@open-policy-agent/opa-wasm` because that package answers some
 * built-ins OPA leaves to the host with JavaScript stand-ins that give other answers than OPA (its `sprintf`
 * is sprintf-js: `sprintf("%v", [["a", "b"]])` gives `a,b` where OPA gives `["a", "b"]`) and lets nobody
 * replace them. Here every call of a host built-in, and every abort, is `NeedsOpa`: the engine then asks the
 * OPA binary (opa-engine.ts), so that an answer from Wasm is always the answer OPA gives. A passing plan rarely
 * reaches a host built-in (policies build their messages with `sprintf` once a violation is found).
 */

import { canonicalJson } from './opa-wasm-value.js';

/** This evaluation cannot be answered exactly in Wasm (a host built-in, an abort): the OPA binary answers it. */
export class NeedsOpa extends Error {}

/** The Wasm memory maximum was reached. */
export class WasmMemoryExceeded extends Error {}

/** The answer passed its size bound. */
export class WasmAnswerTooLarge extends Error {}

const PAGE = 64 * 1024;

interface OpaExports {
  opa_eval(reserved: number, entrypoint: number, data: number, input: number, inputLength: number, heap: number, format: number): number;
  opa_malloc(bytes: number): number;
  opa_json_parse(address: number, length: number): number;
  opa_heap_ptr_get(): number;
  opa_wasm_abi_version?: WebAssembly.Global;
  opa_wasm_abi_minor_version?: WebAssembly.Global;
}

export interface WasmLimits {
  /** The Wasm memory maximum (TEAMSTAGE_POLICY_MEMORY_MB). */
  memoryBytes: number;
  /** The largest answer (its JSON) taken. */
  maxOutputBytes: number;
}

/**
 * Evaluates the module's first entrypoint (it is built with exactly one) on the input JSON bytes: the result
 * set's JSON text as OPA writes it, `[]` when the query is undefined, `[{"result": …}]` when it is defined.
 */
export function evaluateWasm(module: WebAssembly.Module, input: Uint8Array, limits: WasmLimits): string {
  const maximum = Math.max(2, Math.floor(limits.memoryBytes / PAGE));
  const memory = new WebAssembly.Memory({ initial: 2, maximum });
  const abort = (why: string) => {
    throw new NeedsOpa(why);
  };
  const hostBuiltin = () => abort('a host built-in');
  const instance = new WebAssembly.Instance(module, {
    env: {
      memory,
      opa_abort: () => abort('the policy aborted'),
      opa_println: () => undefined,
      opa_builtin0: hostBuiltin,
      opa_builtin1: hostBuiltin,
      opa_builtin2: hostBuiltin,
      opa_builtin3: hostBuiltin,
      opa_builtin4: hostBuiltin,
    },
  });
  const opa = instance.exports as unknown as OpaExports;
  if (opa.opa_wasm_abi_version?.value !== 1 || (opa.opa_wasm_abi_minor_version?.value ?? 0) < 2) throw new NeedsOpa('an older Wasm ABI');
  try {
    const data = writeBytes(opa, memory, new TextEncoder().encode('{}'));
    const dataAddress = opa.opa_json_parse(data, 2);
    const inputAddress = opa.opa_heap_ptr_get();
    const end = inputAddress + input.byteLength;
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
    new Uint8Array(memory.buffer).set(input, inputAddress);
    // Format 1: Rego's value syntax, which tells sets from arrays (opa-wasm-value.ts).
    const result = opa.opa_eval(0, 0, dataAddress, inputAddress, input.byteLength, end, 1);
    return canonicalJson(readString(memory, result, limits.maxOutputBytes));
  } catch (error) {
    // A failed memory.grow is a RangeError; inside the module, a failed malloc aborts: both near the maximum.
    if (error instanceof WasmAnswerTooLarge) throw error;
    if (memory.buffer.byteLength + 16 * PAGE >= maximum * PAGE || (error instanceof RangeError && /memory/i.test(error.message))) throw new WasmMemoryExceeded();
    // Anything else (a stack overflow on a deep input, …): OPA answers it, as it would have.
    throw new NeedsOpa(error instanceof Error ? error.message : String(error));
  }
}

function writeBytes(opa: OpaExports, memory: WebAssembly.Memory, bytes: Uint8Array): number {
  const address = opa.opa_malloc(bytes.byteLength);
  new Uint8Array(memory.buffer).set(bytes, address);
  return address;
}

/** The NUL-terminated UTF-8 string at `address`, refused once it passes `max` bytes. */
function readString(memory: WebAssembly.Memory, address: number, max: number): string {
  const bytes = new Uint8Array(memory.buffer);
  const end = bytes.indexOf(0, address);
  const stop = end === -1 ? bytes.length : end;
  if (stop - address > max) throw new WasmAnswerTooLarge();
  return new TextDecoder().decode(bytes.subarray(address, stop));
}
