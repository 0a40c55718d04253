import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MixedLoadOptions } from './mixed-load.js';

/**
 * Runs `mixedLoad` over and over in a child process until stopped: the load a latency is measured under
 * (gate latency), generated apart from the process that measures, as a person's client would be.
 */
export async function startBackgroundLoad(options: Omit<MixedLoadOptions, 'durationSeconds'>): Promise<{ stop(): Promise<void> }> {
  const child = fork(fileURLToPath(new URL('./mixed-load-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`background load exited with ${code} before starting`)));
    child.send(options);
  });
  return {
    stop: async () => {
      if (child.connected) child.disconnect(); // it finishes its current second of load, then exits
      await exited;
    },
  };
}
