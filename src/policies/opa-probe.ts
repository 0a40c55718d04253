import { execFile, execFileSync, type ExecFileOptionsWithStringEncoding, type ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import { capabilitiesAhead } from './opa-capabilities.js';

export type FoundOpa = { path: string; version: string } | { path: undefined; reason: string };

/** What each path answered: the binary does not change under a running process (tests build many apps). */
const FOUND = new Map<string, FoundOpa>();
const VERSION_ASYNC_OPTIONS: ExecFileOptionsWithStringEncoding = { encoding: 'utf8', timeout: 10_000 };
const VERSION_OPTIONS: ExecFileSyncOptionsWithStringEncoding = { ...VERSION_ASYNC_OPTIONS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] };

/**
 * The binary to use: TEAMSTAGE_OPA_PATH when set (it must work), else `opa` on the PATH; undefined when there is
 * none. Runs `opa version` once per path, synchronously, unless the start asked ahead (probeOpaAhead).
 */
export function findOpa(configuredPath: string | undefined): FoundOpa {
  const candidate = configuredPath || 'opa';
  const known = FOUND.get(candidate);
  if (known) return known;
  let found: FoundOpa;
  try {
    found = answered(candidate, execFileSync(candidate, ['version'], VERSION_OPTIONS));
  } catch (error) {
    found = refused(error, configuredPath);
  }
  FOUND.set(candidate, found);
  return found;
}

/**
 * `serve` asks OPA for its version and capabilities while it opens and migrates the database, instead of two
 * synchronous commands on the way to listening (20–80 ms of every start, more on a busy machine; issue 39). The
 * engine then finds both answers cached. Never rejects: whatever went wrong is cached for the engine to report.
 */
export async function probeOpaAhead(configuredPath: string | undefined): Promise<void> {
  const candidate = configuredPath || 'opa';
  if (!FOUND.has(candidate)) {
    const found = await new Promise<FoundOpa>((resolve) => {
      execFile(candidate, ['version'], VERSION_ASYNC_OPTIONS, (error, stdout) => resolve(error ? refused(error, configuredPath) : answered(candidate, stdout)));
    });
    if (!FOUND.has(candidate)) FOUND.set(candidate, found);
  }
  const found = FOUND.get(candidate)!;
  if (found.path !== undefined) await capabilitiesAhead(found.path);
}

function answered(candidate: string, out: string): FoundOpa {
  return { path: candidate, version: /^Version:\s*(\S+)/m.exec(out)?.[1] ?? 'unknown' };
}

function refused(error: unknown, configuredPath: string | undefined): FoundOpa {
  const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message.split('\n')[0];
  return { path: undefined, reason: configuredPath ? `TEAMSTAGE_OPA_PATH=${configuredPath}: ${why}` : `no opa on the PATH (${why}); set TEAMSTAGE_OPA_PATH` };
}
