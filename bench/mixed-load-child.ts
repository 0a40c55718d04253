/**
 * The entry of a background mixed load in a process of its own (mixed-load-process.ts): the load
 * generator must not share an event loop with what measures latency beside it.
 */
import { mixedLoad, type MixedLoadOptions } from './mixed-load.js';

let running = true;
process.once('message', async (options: MixedLoadOptions) => {
  process.once('disconnect', () => (running = false));
  process.send!('started');
  while (running) await mixedLoad({ ...options, durationSeconds: 1 });
  process.exit(0);
});
