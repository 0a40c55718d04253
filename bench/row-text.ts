import { isSaturated, type CpuPerRequest } from './measure.js';

/** How the bench rows print numbers: thousands separated, `digits` decimals. */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A latency in ms as wrk measures it (to the µs): two decimals below 10 ms, one above. */
export const ms = (value: number) => `${fmt(value, value < 10 ? 2 : 1)} ms`;

export function cpuText(cpu: CpuPerRequest | undefined): string {
  if (!cpu) return '-';
  const generator = cpu.generatorUs === undefined ? '' : `; load generator ${fmt(cpu.generatorUs)} µs`;
  return `server ${fmt(cpu.serverUs)} µs${cpu.databaseUs === undefined ? '' : `, PostgreSQL ${fmt(cpu.databaseUs)} µs`}${busyText(cpu)}${generator}`;
}

/**
 * How busy the serving processes were: "0.97 core", or for several "1.9 cores of 2", flagged when not
 * saturated (the load generator bounded the figure; a ratio against it measures the load generator).
 */
export function busyText(cpu: CpuPerRequest): string {
  if (cpu.serverCores === undefined) return '';
  const processes = cpu.serverProcesses ?? 1;
  const busy = processes === 1 ? `${fmt(cpu.serverCores, 2)} core busy` : `${fmt(cpu.serverCores, 2)} cores busy of ${processes}`;
  return isSaturated(cpu) ? ` (${busy})` : ` (${busy}: NOT SATURATED, bounded by the load generator, not by its own work)`;
}
