import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { auditRow, type AuditEntry, type AuditTrailRow } from './audit-trail.js';
import type { AuditTrailRepository } from './audit-trail.repository.js';

/**
 * The port every domain writes the audit trail through. An entry is written in the transaction of the change
 * it records: nothing acknowledged is missing from the trail, and nothing that rolled back is in it.
 *
 * - `record(trx, entry…)`: inside a transaction the caller already holds.
 * - `transaction(work)`: for a change that had no transaction of its own: `work` writes the change with `trx`
 *   and answers its result and the entries to record (none when nothing changed).
 */
export class AuditTrailRecorder {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly repository: AuditTrailRepository,
  ) {}

  async record(executor: Executor, ...entries: Array<AuditEntry | AuditTrailRow>): Promise<void> {
    await this.repository.insert(executor, entries.map((entry) => ('resource' in entry ? auditRow(entry) : entry)));
  }

  async transaction<T>(work: (trx: Kysely<Database>) => Promise<{ result: T; entries: AuditEntry[] }>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const { result, entries } = await work(trx);
      await this.record(trx, ...entries);
      return result;
    });
  }
}
