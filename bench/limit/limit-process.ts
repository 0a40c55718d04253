import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from '../../test/helpers/process-cpu.js';

export interface LimitProcess {
  url: string;
  pid: number;
  /** CPU time of the whole process (its writer thread included), in ms. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Starts a limit server in a process of its own. `target`: the SQLite file, or the PostgreSQL URL. */
export async function startLimitProcess(kind: 'sqlite' | 'postgres', target: string): Promise<LimitProcess> {
  const child = fork(fileURLToPath(new URL('./limit-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve(message.url));
    child.once('exit', (code) => reject(new Error(`limit process exited with ${code} before listening`)));
    child.send({ kind, target });
  });
  return {
    url,
    pid: child.pid!,
    cpuMs: () => processCpuMs(child.pid!),
    close: async () => {
      if (child.connected) child.disconnect();
      else child.kill('SIGKILL');
      await exited;
    },
  };
}
