/**
 * Runs wrk (C, one event loop per thread) as the load generator of the throughput rows: autocannon, in
 * Node on the same two cores, held the physical limit at half a core (issue 26), so its ratios measured
 * the load generator. Both sides of a row get the same wrk, the same script and the same arguments.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './measure.js';
import { parseWrkReport } from './wrk-report.js';

export const WRK_MISSING = 'wrk is not installed: the bench loads both sides of every throughput row with it (apt-get install -y wrk)';

export function wrkInstalled(): boolean {
  return !spawnSync('wrk', ['-v']).error;
}

/** A script of bench/wrk/: walk (the mix, reads, lists), create (POST with unique names), fixed (one request). */
export type WrkScript = 'walk' | 'create' | 'fixed';

export interface WrkRun {
  /** The server's origin, or for `fixed` the whole URL to ask for. */
  url: string;
  script: WrkScript;
  scriptArgs?: string[];
  connections: number;
  durationSeconds: number;
  /** Headers of every request (`fixed`; the other scripts write their own). */
  headers?: Record<string, string>;
}

/**
 * One wrk thread: it costs about 20 µs of CPU per request at the SQLite limit (0.4 core at 20,000 req/s,
 * bench/cpu-per-request.ts), enough to keep the limit's core busy; two threads cost as much per request and
 * measured no better on the two-core machine, where every core the generator takes is one the servers lack.
 */
export const WRK_THREADS = 1;
/** A slow answer is a long latency, not an error, unless it takes this long (wrk's own default is 2 s). */
const TIMEOUT = '10s';

/** wrk's threads for a run: never more than its connections (wrk refuses that). */
const threadsOf = (run: WrkRun) => Math.min(WRK_THREADS, run.connections);

export function wrkArguments(run: WrkRun): string[] {
  const script = fileURLToPath(new URL(`./wrk/${run.script}.lua`, import.meta.url));
  return [
    '--threads', String(threadsOf(run)),
    '--connections', String(run.connections),
    '--duration', `${run.durationSeconds}s`,
    '--timeout', TIMEOUT,
    ...Object.entries(run.headers ?? {}).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
    '--script', script,
    run.url,
    ...(run.scriptArgs?.length ? ['--', ...run.scriptArgs] : []),
  ];
}

function spawnWrk(run: WrkRun): ChildProcess {
  if (!wrkInstalled()) throw new Error(WRK_MISSING);
  return spawn('wrk', wrkArguments(run), { stdio: ['ignore', 'pipe', 'pipe'] });
}

function finished(child: ChildProcess): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code }));
  });
}

/** One wrk run of `durationSeconds`, and what it measured. */
export async function runWrk(run: WrkRun): Promise<LoadResult> {
  const { stdout, stderr, code } = await finished(spawnWrk(run));
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr.trim() || stdout.slice(-500)}`);
  return { ...parseWrkReport(stdout), generatorThreads: threadsOf(run) };
}

/** wrk in the background until stopped (its `durationSeconds` is only an upper bound); what it measured is not used. */
export function startWrk(run: WrkRun): { stop(): Promise<void> } {
  const child = spawnWrk(run);
  const done = finished(child);
  return {
    stop: async () => {
      child.kill('SIGINT'); // wrk ends its threads and reports on SIGINT
      await done;
    },
  };
}
