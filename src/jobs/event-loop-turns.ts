/**
 * Hands out event-loop turns one at a time.
 *
 * On SQLite every query is synchronous and Kysely resolves it at once, so a job that only touches the
 * database runs from start to end in one chain of microtasks, and jobs started together run back to back
 * without the event loop ever polling sockets. Under a backlog that kept callbacks and API requests
 * waiting for seconds. Each waiter here is released by its own `setImmediate`, and the next one is armed
 * only then, so Node polls for I/O between two job starts: a request waits for at most one job's burst.
 *
 * A waiter that finds the current turn free (no job started in it, nobody queued) goes at once: waiting
 * for one more turn would let nothing else through that this turn does not, and under load a turn holds
 * every request read in one poll (10–15 ms at 50 busy connections), which each hop of a run's way to its
 * first task request paid twice (issue 18's gate latency).
 */
export class EventLoopTurns {
  private readonly waiting: Array<() => void> = [];
  private armed = false;
  /** A waiter was released in this turn: the next one waits for the next turn. */
  private turnTaken = false;

  /** Resolves in this turn if it is free, else on a later turn of the event loop than any waiter queued before. */
  next(): Promise<void> {
    if (!this.turnTaken && this.waiting.length === 0) {
      this.takeTurn();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  private takeTurn(): void {
    this.turnTaken = true;
    // Armed now, it runs in this iteration's check phase at the earliest: after the poll in progress (or
    // the next one, if armed from the check phase), never before the I/O already waiting to be read.
    this.arm();
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(() => {
      this.armed = false;
      this.turnTaken = false;
      const next = this.waiting.shift();
      if (next) {
        this.turnTaken = true;
        next();
      }
      // Armed from inside the check phase, the next immediate runs after the next poll for I/O.
      if (this.waiting.length > 0 || this.turnTaken) this.arm();
    });
  }
}
