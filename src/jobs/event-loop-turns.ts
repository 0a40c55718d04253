/**
 * Hands out event-loop turns one at a time.
 *
 * On SQLite every query is synchronous and Kysely resolves it at once, so a job that only touches the
 * database runs from start to end in one chain of microtasks, and jobs started together run back to back
 * without the event loop ever polling sockets. Under a backlog that kept callbacks and API requests
 * waiting for seconds. Each waiter here is released by its own `setImmediate`, and the next one is armed
 * only then, so Node polls for I/O between two job starts: a request waits for at most one job's burst.
 */
export class EventLoopTurns {
  private readonly waiting: Array<() => void> = [];
  private armed = false;

  /** Resolves on a later turn of the event loop than any waiter queued before. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(() => {
      this.armed = false;
      this.waiting.shift()?.();
      // Armed from inside the check phase, the next immediate runs after the next poll for I/O.
      if (this.waiting.length > 0) this.arm();
    });
  }
}
