import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch as undiciFetch } from 'undici';
import { freePort } from './postgres-server.js';
import { processCpuMs } from './process-cpu.js';

const ownRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far (logs are searched for secrets). */
  output(): string;
  /** Peak resident memory in bytes (Linux VmHWM). */
  peakRssBytes(): number;
  /** CPU time the process used so far, user + system, in milliseconds (Linux /proc; 10 ms resolution). */
  cpuMs(): number;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * A real Teamstage node on 127.0.0.1. Uses the compiled build when `compiled` (benchmarks measure what
 * `npm start` runs), else tsx on the sources.
 */
export async function startServerProcess(
  env: Record<string, string>,
  /** `tlsCa`: the server serves HTTPS (TEAMSTAGE_TLS_CERT/KEY in `env`) with a certificate this CA signed. */
  /** `root`: another checkout to run (an earlier release, test/system/rolling-upgrade.test.ts); this one by default. */
  options: { compiled?: boolean; port?: number; readyTimeoutMs?: number; tlsCa?: string; root?: string } = {},
): Promise<ServerProcess> {
  const root = options.root ?? ownRoot;
  const port = options.port ?? (await freePort());
  const args = options.compiled
    ? [path.join(root, 'dist/bundle/teamstage.mjs'), 'serve']
    : ['--import', 'tsx', path.join(root, 'src/cli.ts'), 'serve'];
  // TEAMSTAGE_SERVER_NODE_ARGS: extra node flags for the server only, e.g. `--cpu-prof` when profiling a bench.
  const nodeArgs = (process.env.TEAMSTAGE_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `${options.tlsCa ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dispatcher = options.tlsCa ? new Agent({ connect: { ca: options.tlsCa } }) : undefined;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = dispatcher ? await undiciFetch(`${url}/readyz`, { dispatcher }) : await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready within the time limit:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await dispatcher?.close();
  return {
    url,
    port,
    pid: child.pid!,
    child,
    output: () => output,
    peakRssBytes: () => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        return match ? Number(match[1]) * 1024 : 0;
      } catch {
        return 0;
      }
    },
    cpuMs: () => processCpuMs(child.pid!),
    kill: async (signal) => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
