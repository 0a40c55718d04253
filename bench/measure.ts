import { MACHINE_CORES, machineBusyMs } from './machine-cpu.js';

/** What one load measured (bench/wrk-load.ts runs it). Latencies in ms. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Responses received in the whole run. */
  total: number;
  non2xx: number;
  errors: number;
  /** CPU time the load generator itself used, in ms (every thread of wrk). */
  generatorCpuMs?: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** p50 and p99 of a list of milliseconds. */
export function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: median(sorted), p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0 };
}

/** Reads a cumulative CPU time in ms (a process, or PostgreSQL with its backends). */
export type CpuProbe = () => number;

export interface PairedCpu {
  /** The process serving the requests: Teamstage, or the baseline server. */
  server: CpuProbe;
  /** The database server, when it runs in processes of its own. */
  database?: CpuProbe;
}

/** CPU time per answered request, in µs, and how many cores the serving processes kept busy meanwhile. */
export interface CpuPerRequest {
  serverUs: number;
  databaseUs?: number;
  /** Server CPU time over the wall time of the loads: near 1 per process when the server, not the load generator, is the bound. */
  serverCores?: number;
  /** How many processes served (each can keep at most one core busy: Node runs JavaScript on one thread). */
  serverProcesses?: number;
  /** PostgreSQL's busy cores, when it runs apart. */
  databaseCores?: number;
  /** The load generator's CPU per answered request, and its busy cores: what it took from the servers' machine. */
  generatorUs?: number;
  generatorCores?: number;
  /** The whole machine's busy cores over the loads (every process: the bench's own, and anyone else's), of `machineSize`. */
  machineCores?: number;
  machineSize?: number;
}

/**
 * A side of a row is saturated when its serving processes were busy most of the time: below this share of a
 * core per process, the load generator (or the machine) bounded the throughput, not the server's own work,
 * and a ratio against it measures the load generator.
 */
export const SATURATED_SHARE = 0.8;

export function isSaturated(cpu: Pick<CpuPerRequest, 'serverCores' | 'serverProcesses'>): boolean {
  return cpu.serverCores === undefined || cpu.serverCores >= SATURATED_SHARE * (cpu.serverProcesses ?? 1);
}

/** Counts a load's server CPU, database CPU, load generator CPU, the machine's busy time and wall time into `spent`. */
export async function counted(run: () => Promise<LoadResult>, probes: PairedCpu | undefined, spent: Spent): Promise<LoadResult> {
  const before = { server: probes?.server() ?? 0, database: probes?.database?.() ?? 0, machine: machineBusyMs(), wall: performance.now() };
  const result = await run();
  spent.server += (probes?.server() ?? 0) - before.server;
  spent.database += (probes?.database?.() ?? 0) - before.database;
  spent.machine += machineBusyMs() - before.machine;
  spent.generator += result.generatorCpuMs ?? 0;
  spent.wallMs += performance.now() - before.wall;
  return result;
}

/** CPU time in ms: of the serving processes, the database, the load generator and the whole machine. */
export interface Spent {
  server: number;
  database: number;
  generator: number;
  machine: number;
  wallMs: number;
}

export const nothingSpent = (): Spent => ({ server: 0, database: 0, generator: 0, machine: 0, wallMs: 0 });

/** CPU per request and busy cores from what the loads of one side spent over `answered` requests. */
export function cpuPerRequest(spent: Spent, answered: number, withDatabase: boolean, serverProcesses = 1): CpuPerRequest {
  const perRequest = (ms: number) => (answered > 0 ? (ms * 1000) / answered : 0);
  const cores = (ms: number) => (spent.wallMs > 0 ? ms / spent.wallMs : 0);
  return {
    serverUs: perRequest(spent.server),
    ...(withDatabase && { databaseUs: perRequest(spent.database), databaseCores: cores(spent.database) }),
    serverCores: cores(spent.server),
    serverProcesses,
    ...(spent.generator > 0 && { generatorUs: perRequest(spent.generator), generatorCores: cores(spent.generator) }),
    ...(spent.machine > 0 && { machineCores: cores(spent.machine), machineSize: MACHINE_CORES }),
  };
}

export interface PairedResult {
  target: { rps: number; p50: number; p99: number; cpu?: CpuPerRequest };
  baseline: { rps: number; p50: number; p99: number; cpu?: CpuPerRequest };
  /** Throughput: the target's over the baseline's. */
  ratio: number;
  rounds: number;
  failures: number;
  /** Requests the target answered over all rounds (for CPU per request). */
  targetRequests: number;
}


/**
 * Runs target and baseline alternately, `rounds` times each, so both see the same machine noise, and
 * reports medians and the ratio of median throughputs; with CPU probes, also each side's CPU per request
 * (the server's, and the database's when it runs apart), which varies less than throughput on a shared machine.
 */
export async function paired(
  rounds: number,
  target: () => Promise<LoadResult>,
  baseline: () => Promise<LoadResult>,
  cpu?: { target: PairedCpu; baseline: PairedCpu },
): Promise<PairedResult> {
  const targets: LoadResult[] = [];
  const baselines: LoadResult[] = [];
  const spent = { target: nothingSpent(), baseline: nothingSpent() };
  for (let round = 0; round < rounds; round++) {
    baselines.push(await counted(baseline, cpu?.baseline, spent.baseline));
    targets.push(await counted(target, cpu?.target, spent.target));
  }
  const summary = (list: LoadResult[], probes: PairedCpu | undefined, used: Spent) => {
    const answered = list.reduce((sum, r) => sum + r.total, 0);
    return {
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      ...(probes && { cpu: cpuPerRequest(used, answered, probes.database !== undefined) }),
    };
  };
  const t = summary(targets, cpu?.target, spent.target);
  const b = summary(baselines, cpu?.baseline, spent.baseline);
  return {
    target: t,
    baseline: b,
    ratio: b.rps > 0 ? t.rps / b.rps : 0,
    rounds,
    failures: targets.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    targetRequests: targets.reduce((sum, r) => sum + r.total, 0),
  };
}
