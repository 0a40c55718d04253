import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` every `everyMs` (10) until it holds; answers how many milliseconds that took. Fails with
 * `what` once `timeoutMs` has passed.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition not met in time', everyMs = 10): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > timeoutMs) throw new Error(what);
    await sleep(everyMs);
  }
  return performance.now() - started;
}
