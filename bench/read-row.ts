import type { ServerProcess } from '../test/helpers/server-process.js';
import { recordResponse } from './baseline-server.js';
import { startBaselineProcess } from './baseline-process.js';
import { paired, type CpuPerRequest } from './measure.js';
import type { Row } from './run.js';

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function cpuText(cpu: CpuPerRequest | undefined): string {
  if (!cpu) return '-';
  return `server ${fmt(cpu.serverUs)} µs${cpu.databaseUs === undefined ? '' : `, PostgreSQL ${fmt(cpu.databaseUs)} µs`}`;
}

export interface ReadScenario {
  scenario: string;
  dialect: string;
  server: ServerProcess;
  /** The path and query of the GET, and the owner's token that sends it. */
  path: string;
  token: string;
  settings: { rounds: number; duration: number; connections: number };
  minRatio: number;
  maxP99?: number;
}

/**
 * One GET under load against its baseline: a process answering a byte-identical copy of Teamstage's
 * response from memory. Both sides report their CPU per request.
 */
export async function readRow(read: ReadScenario): Promise<Row> {
  const headers = { authorization: `Bearer ${read.token}` };
  const baseline = await startBaselineProcess('static', await recordResponse(`${read.server.url}${read.path}`, headers));
  try {
    const common = { connections: read.settings.connections, durationSeconds: read.settings.duration, headers };
    const result = await paired(
      read.settings.rounds,
      { ...common, url: `${read.server.url}${read.path}` },
      { ...common, url: `${baseline.url}${read.path}` },
      { target: { server: read.server.cpuMs }, baseline: { server: baseline.cpuMs } },
    );
    const p99Met = read.maxP99 === undefined || result.target.p99 <= read.maxP99;
    return {
      scenario: read.scenario,
      dialect: read.dialect,
      measured: `${fmt(result.target.rps)} req/s, p50 ${result.target.p50} ms, p99 ${result.target.p99} ms; CPU per request: ${cpuText(result.target.cpu)}`,
      baseline: `${fmt(result.baseline.rps)} req/s, p99 ${result.baseline.p99} ms; CPU per request: ${cpuText(result.baseline.cpu)}`,
      ratio: `${fmt(result.ratio, 2)}×`,
      target: `≥ ${read.minRatio}×${read.maxP99 !== undefined ? `, p99 ≤ ${read.maxP99} ms` : ''}`,
      met: result.ratio >= read.minRatio && p99Met && result.failures === 0,
    };
  } finally {
    await baseline.close();
  }
}
