import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import type { RegoVersion } from './opa-types.js';

/**
 * A policy compiled to WebAssembly by the OPA binary itself (`opa build -t wasm`, with the same restricted
 * capabilities as every evaluation: a policy that calls a removed built-in does not compile, and OPA then
 * answers it with its own refusal), kept by the digest of what it was built from (its Rego, Rego version and
 * query), so that a policy is compiled once per node however many runs it judges. Compiled modules are kept
 * in memory, the most recently used first, at most MAX_MODULES (one is ~150 KiB of Wasm, mostly OPA's own
 * runtime, and takes ~0.75 MiB of the server's memory compiled: 32 are ~24 MiB); a node that restarts, or a
 * policy dropped from the cache, is compiled again on its next use (one `opa build`, ~50–150 ms).
 *
 * Some policies are always answered by the OPA binary: a query that is not a plain `data.…` rule (the Wasm
 * target builds entrypoints, not queries), a policy that calls print() (the Wasm target drops print, whose
 * lines are part of the outcome), and any that `opa build` refuses (it says why, the binary answers).
 */
export type Compiled = { kind: 'wasm'; module: WebAssembly.Module } | { kind: 'opa'; why: string };

/** Runs `opa` with the arguments under the engine's bounds (memory, time, output), in the caller's slot. */
export type RunOpa = (args: string[]) => Promise<{ code: number | null; stopped?: string; stderr: string; stdout: string }>;

const MAX_MODULES = 32;
const PLAIN_RULE = /^data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;
const CALLS_PRINT = /\bprint\s*\(/;

export class WasmCompiler {
  private readonly modules = new Map<string, Promise<Compiled>>();

  constructor(private readonly capabilitiesFile: string) {}

  /** The compiled policy (from the cache when it was built before), or why OPA itself answers it. */
  compile(policy: { rego: string; regoVersion: RegoVersion; query: string }, run: RunOpa): Promise<Compiled> {
    const digest = createHash('sha256').update(`${policy.regoVersion}\0${policy.query}\0${policy.rego}`).digest('hex');
    const known = this.modules.get(digest);
    if (known) {
      // Most recently used last: the first key is the one to drop.
      this.modules.delete(digest);
      this.modules.set(digest, known);
      return known;
    }
    const compiled = this.build(policy, run).then((outcome) => {
      // A build stopped by a bound (a busy machine's timeout) is not a fact about the policy: tried again next time.
      if (outcome.kind === 'opa' && outcome.why.startsWith('stopped')) this.modules.delete(digest);
      return outcome;
    });
    this.modules.set(digest, compiled);
    while (this.modules.size > MAX_MODULES) this.modules.delete(this.modules.keys().next().value!);
    return compiled;
  }

  private async build(policy: { rego: string; regoVersion: RegoVersion; query: string }, run: RunOpa): Promise<Compiled> {
    const rule = PLAIN_RULE.exec(policy.query);
    if (!rule) return { kind: 'opa', why: 'the query is not a plain rule' };
    if (CALLS_PRINT.test(policy.rego)) return { kind: 'opa', why: 'the policy calls print()' };
    const scratch = await mkdtemp(path.join(tmpdir(), 'teamstage-opa-wasm-'));
    try {
      return await this.buildIn(scratch, rule[1]!.slice(1).replaceAll('.', '/'), policy, run);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async buildIn(scratch: string, entrypoint: string, policy: { rego: string; regoVersion: RegoVersion }, run: RunOpa): Promise<Compiled> {
    const source = path.join(scratch, 'wasm-policy.rego');
    const bundle = path.join(scratch, 'wasm-bundle.tar.gz');
    await writeFile(source, policy.rego, { mode: 0o600 });
    const args = ['build', '-t', 'wasm', '--capabilities', this.capabilitiesFile, '-e', entrypoint, '-o', bundle];
    if (policy.regoVersion === 'v0') args.push('--v0-compatible');
    const built = await run([...args, source]);
    if (built.stopped) return { kind: 'opa', why: `stopped: ${built.stopped}` };
    if (built.code !== 0) return { kind: 'opa', why: 'opa build refused it' };
    const wasm = await policyWasmOf(await readFile(bundle));
    if (!wasm) return { kind: 'opa', why: 'the bundle holds no policy.wasm' };
    return { kind: 'wasm', module: await WebAssembly.compile(new Uint8Array(wasm)) };
  }
}

/** `/policy.wasm` of the bundle `opa build` wrote (a tar.gz of a few entries, all from OPA). */
async function policyWasmOf(bundle: Buffer): Promise<Buffer | undefined> {
  let wasm: Buffer | undefined;
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      if (entry.path.replace(/^\/+/, '') !== 'policy.wasm') return entry.resume();
      const pieces: Buffer[] = [];
      entry.on('data', (piece: Buffer) => pieces.push(piece));
      entry.on('end', () => {
        wasm = Buffer.concat(pieces);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('error', reject);
    parser.on('end', () => resolve());
    parser.end(bundle);
  });
  return wasm;
}
