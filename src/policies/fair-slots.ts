/**
 * The OPA processes of a node, handed out fairly across organizations (issue 34). Before, one first-come
 * queue of two slots: an organization with 60 looping policies queued made another organization's trivial
 * policy wait for all of them (174 ms alone, 9.6 s behind ten runs of six 2-second policies).
 *
 * Now a freed slot goes to the waiting organization that runs the fewest processes, the one waiting longest
 * among equals, and no organization runs more than `perOrganization` at once. So an organization with
 * nothing running gets the next slot that frees, whatever others have queued: it waits at most for the
 * shortest running evaluation, which is bounded by the evaluation time limit.
 *
 * In memory and per node, like the slots it shares: the durable, cross-node part is the policy job lane
 * (jobs/job-lanes.ts), which claims evaluations in turn across organizations. Written by hand: the queue
 * libraries at hand (p-limit, p-queue) are first-come or priority queues, not fair across keys.
 */
export class FairSlots {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Waiters per organization, each in arrival order; `seq` orders organizations among equals. */
  private readonly waiting = new Map<string, Array<{ seq: number; grant: () => void }>>();
  private nextSeq = 0;

  constructor(
    private readonly slots: number,
    private readonly perOrganization: number,
  ) {}

  /** Waits for a slot for `organization`; answers the function that gives it back (call it exactly once). */
  async acquire(organization: string): Promise<() => void> {
    if (this.running < this.slots && this.held(organization) < this.perOrganization && !this.waiting.has(organization)) {
      this.take(organization);
    } else {
      await new Promise<void>((grant) => {
        const queue = this.waiting.get(organization) ?? [];
        queue.push({ seq: this.nextSeq++, grant });
        this.waiting.set(organization, queue);
        this.grantFree();
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      const held = this.held(organization) - 1;
      if (held === 0) this.runningBy.delete(organization);
      else this.runningBy.set(organization, held);
      this.grantFree();
    };
  }

  /** Slots busy now, and organizations waiting (for tests and figures). */
  get busy(): number {
    return this.running;
  }

  private held(organization: string): number {
    return this.runningBy.get(organization) ?? 0;
  }

  private take(organization: string): void {
    this.running += 1;
    this.runningBy.set(organization, this.held(organization) + 1);
  }

  /** While a slot is free: the waiting organization with the fewest running, then the oldest waiter, gets it. */
  private grantFree(): void {
    while (this.running < this.slots) {
      let best: { organization: string; held: number; seq: number } | undefined;
      for (const [organization, queue] of this.waiting) {
        const held = this.held(organization);
        if (held >= this.perOrganization) continue;
        const seq = queue[0]!.seq;
        if (!best || held < best.held || (held === best.held && seq < best.seq)) best = { organization, held, seq };
      }
      if (!best) return;
      const queue = this.waiting.get(best.organization)!;
      const waiter = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(best.organization);
      this.take(best.organization);
      waiter.grant();
    }
  }
}
