import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A start-time check that failed: its message is the one line the operator reads. */
export class StartCheckFailed extends Error {}

function userRunningTeamstage(): string {
  const uid = process.getuid?.();
  return uid === undefined ? 'the user running Teamstage' : `the user running Teamstage (uid ${uid})`;
}

/**
 * Whether `host:port` can be listened on, asked before anything is written (a site token printed and then
 * "address in use" left the operator with a token for a server that never ran). Another process may still
 * take the port before the real listen; that failure is explained the same way (explainStartupFailure).
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) => reject(listenFailure(error, host, port) ?? error));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** One line for a listen that failed because of the address, or undefined for anything else. */
export function listenFailure(error: unknown, host: string, port: number): StartCheckFailed | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return new StartCheckFailed(`cannot listen on ${where}: another process uses that address (EADDRINUSE). Stop it, or set PORT (or HOST) to a free one.`);
  if (code === 'EACCES') return new StartCheckFailed(`cannot listen on ${where}: permission denied (EACCES); ports below 1024 need privileges. Set PORT to 1024 or above.`);
  if (code === 'EADDRNOTAVAIL') return new StartCheckFailed(`cannot listen on ${where}: no network interface has that address (EADDRNOTAVAIL). Set HOST to one of this machine's addresses, or 0.0.0.0.`);
  return undefined;
}

/**
 * Uploads (configuration archives, plans, logs) are spooled to TMPDIR while they arrive. Without a writable
 * one every upload failed later, misreported as a read-only database; say so at start instead.
 */
export function checkTempDirectoryWritable(): void {
  const dir = os.tmpdir();
  try {
    fs.rmSync(fs.mkdtempSync(path.join(dir, 'teamstage-start-check-')), { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartCheckFailed(`cannot write the temporary directory ${dir} (${code}): uploads are spooled there. Make it writable by ${userRunningTeamstage()}, or set TMPDIR to a directory that is.`);
  }
}
