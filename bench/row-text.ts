import { isSaturated, SATURATED_SHARE, type CpuPerRequest } from './measure.js';

/** How the bench rows print numbers: thousands separated, `digits` decimals. */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A latency in ms as wrk measures it (to the µs): two decimals below 10 ms, one above. */
export const ms = (value: number) => `${fmt(value, value < 10 ? 2 : 1)} ms`;

/**
 * The machine counts as full from this share of its cores busy: a server short of a core then lacked CPU
 * (the load generator and the database took the rest), not requests.
 */
export const MACHINE_FULL_SHARE = 0.9;

export function cpuText(cpu: CpuPerRequest | undefined): string {
  if (!cpu) return '-';
  const generator = cpu.generatorUs === undefined ? '' : `; load generator ${fmt(cpu.generatorUs)} µs`;
  return `server ${fmt(cpu.serverUs)} µs${cpu.databaseUs === undefined ? '' : `, PostgreSQL ${fmt(cpu.databaseUs)} µs`}${busyText(cpu)}${generator}`;
}

/** CPU per request of a side: its server's, and PostgreSQL's when it runs apart (the work a request costs). */
const totalUs = (cpu: CpuPerRequest) => cpu.serverUs + (cpu.databaseUs ?? 0);

/**
 * Both ratios of a row: throughput (Teamstage's over the limit's; higher is better) and CPU per request
 * (Teamstage's over the limit's, database included; lower is better, and steadier on a shared machine).
 */
export function ratiosText(target: { rps: number; cpu?: CpuPerRequest }, limit: { rps: number; cpu?: CpuPerRequest }): string {
  const throughput = `${fmt(limit.rps > 0 ? target.rps / limit.rps : 0, 2)}× throughput`;
  if (!target.cpu || !limit.cpu || totalUs(limit.cpu) <= 0) return throughput;
  return `${throughput}; ${fmt(totalUs(target.cpu) / totalUs(limit.cpu), 1)}× CPU per request`;
}

/**
 * How busy the serving processes were: "0.97 core", or for several "1.9 cores of 2", flagged when not
 * saturated (then a ratio against this side measures what held it back, not its own work), with why.
 */
export function busyText(cpu: CpuPerRequest): string {
  if (cpu.serverCores === undefined) return '';
  const processes = cpu.serverProcesses ?? 1;
  const busy = processes === 1 ? `${fmt(cpu.serverCores, 2)} core busy` : `${fmt(cpu.serverCores, 2)} cores busy of ${processes}`;
  return isSaturated(cpu) ? ` (${busy})` : ` (${busy}: NOT SATURATED, ${heldBackBy(cpu)})`;
}

/**
 * What held an unsaturated side back. With the machine's busy time known: a full machine (the cores went
 * to the load generator, PostgreSQL and whatever else ran), or, with cores to spare, the load generator
 * when its threads were busy, else waiting (on the database, on fsync: the requests were there, the CPU
 * idle). Without it, as before: the load generator.
 */
function heldBackBy(cpu: CpuPerRequest): string {
  if (cpu.machineCores === undefined || !cpu.machineSize) return 'bounded by the load generator, not by its own work';
  const generator = cpu.generatorCores ?? 0;
  const database = cpu.databaseCores ?? 0;
  const others = Math.max(0, cpu.machineCores - (cpu.serverCores ?? 0) - generator - database);
  const beside = [`load generator ${fmt(generator, 2)}`, ...(cpu.databaseCores === undefined ? [] : [`PostgreSQL ${fmt(database, 2)}`]), `other processes ${fmt(others, 2)}`].join(', ');
  const machine = `${fmt(cpu.machineCores, 2)} of the machine's ${cpu.machineSize} cores busy (${beside})`;
  if (cpu.machineCores >= MACHINE_FULL_SHARE * cpu.machineSize) {
    // PostgreSQL doing more of a request's work than the server (a trigram search) keeps the server short
    // of a core even on an idle machine: the row says so rather than blame the generator.
    const databaseMost = database > (cpu.serverCores ?? 0) ? ", PostgreSQL's most of all (it does more of each request's work than the server)" : '';
    return `${machine}: bounded by the machine's cores${databaseMost}, not by its own work`;
  }
  if (cpu.generatorThreads === undefined) return `${machine}: bounded by the load generator or by waiting, not by its own work`;
  const threads = `${cpu.generatorThreads} thread${cpu.generatorThreads === 1 ? '' : 's'}`;
  return generator >= SATURATED_SHARE * cpu.generatorThreads
    ? `${machine}: bounded by the load generator (its ${threads} busy), not by its own work`
    : `${machine}: bounded by waiting (on the database, on fsync; the load generator's ${threads} had time to spare), not by its own work`;
}
