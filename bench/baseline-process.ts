import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RecordedResponse } from './baseline-server.js';
import type { BaselineSpec } from './baseline-child.js';
import { processCpuMs } from '../test/helpers/process-cpu.js';

/**
 * Starts a baseline server (bare node:http, from memory or with one INSERT per request) in a process of
 * its own, as Teamstage's server runs, so both are measured across the same process boundary.
 */
export async function startBaselineProcess(
  kind: BaselineSpec['kind'],
  response: RecordedResponse,
  databaseUrl?: string,
): Promise<{ url: string; cpuMs(): number; close(): Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./baseline-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spec: BaselineSpec = {
    kind,
    response: { status: response.status, headers: response.headers, bodyBase64: response.body.toString('base64') },
    databaseUrl,
  };
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve(message.url));
    child.once('exit', (code) => reject(new Error(`baseline process exited with ${code} before listening`)));
    child.send(spec);
  });
  return {
    url,
    cpuMs: () => processCpuMs(child.pid!),
    close: async () => {
      child.disconnect();
      await exited;
    },
  };
}
