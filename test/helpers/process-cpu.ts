import fs from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return undefined; // the process is gone
  }
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time (user + system) a live process has used so far, in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/**
 * CPU time of a process and all its children, live or exited, in ms: the parent's own time, the time of
 * children it has reaped (cutime, cstime), and that of its live children. Enough for PostgreSQL, whose
 * backends are direct children of the postmaster.
 */
export function processTreeCpuMs(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  let total = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = statFields(Number(entry));
    if (child && Number(child[1]) === pid) total += (Number(child[11]) + Number(child[12])) * TICK_MS;
  }
  return total;
}

/** CPU time of the children a process has reaped so far (cutime, cstime), in ms: its finished child processes. */
export function reapedChildrenCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[13]) + Number(fields[14])) * TICK_MS : 0;
}
