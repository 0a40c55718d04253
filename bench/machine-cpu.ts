import fs from 'node:fs';
import os from 'node:os';

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** How many cores the machine has: what a side's server, its database and the load generator share. */
export const MACHINE_CORES = os.cpus().length;

/**
 * CPU time the whole machine has spent busy so far, in ms (every core, every process: /proc/stat's first
 * line less idle and iowait). Over a load, it tells whether the cores were full, and so whether a server
 * short of a core was held back by the machine or by its load generator.
 */
export function machineBusyMs(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields; // the skipped two: idle, iowait
    return (user! + nice! + system! + irq! + softirq! + steal!) * TICK_MS;
  } catch {
    return 0; // not Linux: no machine figure, the rows say nothing about it
  }
}
