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

export interface PairedResult {
  target: { rps: number; p50: number; p99: number };
  baseline: { rps: number; p50: number; p99: number };
  ratio: number;
  rounds: number;
  failures: number;
  /** Requests the target answered over all rounds (for CPU per request). */
  targetRequests: number;
}

/**
 * Runs target and baseline alternately, `rounds` times each, so both see the same machine noise, and
 * reports medians and the ratio of median throughputs.
 */
export async function paired(rounds: number, target: LoadOptions, baseline: LoadOptions): Promise<PairedResult> {
  const targets: LoadResult[] = [];
  const baselines: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    baselines.push(await load(baseline));
    targets.push(await load(target));
  }
  const summary = (list: LoadResult[]) => ({
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
  });
  const t = summary(targets);
  const b = summary(baselines);
  return {
    target: t,
    baseline: b,
    ratio: b.rps > 0 ? t.rps / b.rps : 0,
    rounds,
    failures: targets.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    targetRequests: targets.reduce((sum, r) => sum + r.total, 0),
  };
}
