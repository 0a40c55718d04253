import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Responses received in the whole run. */
  total: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fresh body per request (e.g. a unique team name). */
  body?: () => string;
  connections: number;
  durationSeconds: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: options.body
      ? [{ setupRequest: (request: any) => ({ ...request, body: options.body!() }) }]
      : undefined,
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
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

/** CPU time per answered request, in µs. */
export interface CpuPerRequest {
  serverUs: number;
  databaseUs?: number;
}

export interface PairedResult {
  target: { rps: number; p50: number; p99: number; cpu?: CpuPerRequest };
  baseline: { rps: number; p50: number; p99: number; cpu?: CpuPerRequest };
  ratio: number;
  rounds: number;
  failures: number;
  /** Requests the target answered over all rounds (for CPU per request). */
  targetRequests: number;
}

/** Runs one load, adding the CPU each probe used during it to `spent`. */
async function loadCounting(options: LoadOptions, probes: PairedCpu | undefined, spent: { server: number; database: number }) {
  const before = { server: probes?.server() ?? 0, database: probes?.database?.() ?? 0 };
  const result = await load(options);
  spent.server += (probes?.server() ?? 0) - before.server;
  spent.database += (probes?.database?.() ?? 0) - before.database;
  return result;
}

/**
 * Runs target and baseline alternately, `rounds` times each, so both see the same machine noise, and
 * reports medians and the ratio of median throughputs; with CPU probes, also each side's CPU per request
 * (the server's, and the database's when it runs apart), which varies less than throughput on a shared machine.
 */
export async function paired(
  rounds: number,
  target: LoadOptions,
  baseline: LoadOptions,
  cpu?: { target: PairedCpu; baseline: PairedCpu },
): Promise<PairedResult> {
  const targets: LoadResult[] = [];
  const baselines: LoadResult[] = [];
  const spent = { target: { server: 0, database: 0 }, baseline: { server: 0, database: 0 } };
  for (let round = 0; round < rounds; round++) {
    baselines.push(await loadCounting(baseline, cpu?.baseline, spent.baseline));
    targets.push(await loadCounting(target, cpu?.target, spent.target));
  }
  const summary = (list: LoadResult[], probes: PairedCpu | undefined, used: { server: number; database: number }) => {
    const answered = list.reduce((sum, r) => sum + r.total, 0);
    const perRequest = (ms: number) => (answered > 0 ? (ms * 1000) / answered : 0);
    return {
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      ...(probes && {
        cpu: { serverUs: perRequest(used.server), ...(probes.database && { databaseUs: perRequest(used.database) }) },
      }),
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
