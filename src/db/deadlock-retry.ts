/** PostgreSQL aborted the transaction to break a deadlock (or a serialization conflict): safe to run again. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work` again when PostgreSQL chose it as a deadlock victim. A cascading delete (a workspace or an
 * organization with runs in progress) takes row locks run → results → stages, while delivery and
 * callbacks lock stage → result; PostgreSQL breaks such a cycle by aborting one side. Background jobs
 * retry by themselves; a request retries here rather than answering 500.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isRetryableConflict(error) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}
