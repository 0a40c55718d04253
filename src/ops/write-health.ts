import type { DatabaseHandle } from '../db/database.js';
import { describeStorageProblem, storageFailureOf, type StorageFailure } from '../db/storage-failures.js';
import { probeWrite } from '../db/write-probe.js';
import { nowIso } from '../core/clock.js';

export interface WriteRefusal {
  failure: StorageFailure;
  /** When a refusal was first seen (ISO), for operators matching it with their disk graphs. */
  since: string;
}

/**
 * Whether the database takes writes, as /readyz reports it. Requests that meet a refusal record it
 * (error-handler.ts); from then on each readiness check tries a write itself (write-probe.ts) and reports
 * ready again once one works: a node taken out of the balancer for a full disk gets no requests that
 * would show it recovered. While nothing was refused, a check costs no write.
 */
export class WriteHealth {
  private refusal: WriteRefusal | undefined;
  private probing: Promise<void> | undefined;

  constructor(private readonly handle: DatabaseHandle) {}

  /** Records a storage failure; connection failures are /readyz's own `select 1` business. */
  refused(failure: StorageFailure): void {
    if (failure.problem === 'unreachable') return;
    this.refusal = { failure, since: this.refusal?.since ?? nowIso() };
  }

  /** The refusal still in force (one probe write decides), or undefined when writes work. */
  async currentRefusal(): Promise<WriteRefusal | undefined> {
    if (!this.refusal) return undefined;
    // Concurrent checks share one probe.
    this.probing ??= this.probe().finally(() => (this.probing = undefined));
    await this.probing;
    return this.refusal;
  }

  private async probe(): Promise<void> {
    try {
      await probeWrite(this.handle);
      this.refusal = undefined;
    } catch (error) {
      const failure = storageFailureOf(error);
      // Anything else (say, a lost connection) proves nothing either way: the refusal stands.
      if (failure) this.refused(failure);
    }
  }
}

export function describeRefusal(refusal: WriteRefusal): string {
  const { problem, code } = refusal.failure;
  return `the database refuses writes since ${refusal.since}: ${describeStorageProblem(problem)} (${code}); ready again once a write works`;
}
