import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * How a serving node keeps its resident memory small (issue 39: peak RSS under the mix ≤ 120 MiB).
 *
 * A node's live heap is about 30 MB, yet under load V8 let it reach 100 MB before collecting: its default old
 * generation limit grows up to 4× the live size on a machine with much memory, and the young generation grows to
 * 2 × 16 MB. Measured under the mix on SQLite (10,000 teams, 50 connections, runs alternated): peak RSS 177–194 MiB
 * with V8's defaults, 127–129 with these two settings; the price is more collections: CPU per request 203 µs
 * against 168 (medians of 3 pairs on a loaded machine). Both are V8 flags read while the process runs, so the
 * server sets them itself (a flag on the command line would be lost by every way of starting it but one):
 * - the old generation grows by 20% of what a full collection left, not by up to 300%;
 * - the young generation stops growing at 2 × 8 MB (capYoungGeneration).
 * A flag given by the operator (NODE_OPTIONS or node's own arguments) is left as given.
 */
export const HEAP_GROWING_PERCENT = 20;

function givenByOperator(flag: string): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((argument) => {
    const name = argument.split('=')[0]!.replaceAll('_', '-');
    return name === flag;
  });
}

function setUnlessGiven(flag: string, value: number): boolean {
  if (givenByOperator(flag)) return false;
  v8.setFlagsFromString(`${flag}=${value}`);
  return true;
}

/** At the start of `serve`: the old generation's growth. */
export function limitHeapGrowth(): boolean {
  return setUnlessGiven('--heap-growing-percent', HEAP_GROWING_PERCENT);
}

/** The young generation's cap: two semi-spaces of 8 MB (V8's own cap is 2 × 16 MB). */
export const YOUNG_GENERATION_CAP_BYTES = 16 * 1024 * 1024;

/**
 * Whether V8 may still double the young generation: only while doubling stays within the cap. V8 reads
 * --semi-space-growth-factor each time it grows the space; a factor of 1 is "no growth". Its own cap
 * (--max-semi-space-size) cannot be changed once the process runs.
 */
export function youngGenerationGrowthFactor(newSpaceBytes: number, capBytes = YOUNG_GENERATION_CAP_BYTES): 1 | 2 {
  return newSpaceBytes * 2 > capBytes ? 1 : 2;
}

/**
 * Caps the young generation at YOUNG_GENERATION_CAP_BYTES: after each collection, the growth factor is set from
 * its size (a space V8 shrank while idle may grow again, up to the cap). Returns a stop function.
 */
export function capYoungGeneration(): () => void {
  if (givenByOperator('--max-semi-space-size') || givenByOperator('--semi-space-growth-factor')) return () => {};
  let factor = 2;
  const adjust = () => {
    const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (!newSpace) return;
    const wanted = youngGenerationGrowthFactor(newSpace.space_size);
    if (wanted === factor) return;
    factor = wanted;
    v8.setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
  };
  adjust();
  const observer = new PerformanceObserver(adjust);
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
