import type { CpuPerRequest } from './measure.js';

/** How the bench rows print numbers: thousands separated, `digits` decimals. */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function cpuText(cpu: CpuPerRequest | undefined): string {
  if (!cpu) return '-';
  return `server ${fmt(cpu.serverUs)} µs${cpu.databaseUs === undefined ? '' : `, PostgreSQL ${fmt(cpu.databaseUs)} µs`}`;
}
