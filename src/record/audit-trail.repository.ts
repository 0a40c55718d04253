import type { Kysely } from 'kysely';
import type { AuditTrailTable, Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { AuditTrailRow } from './audit-trail.js';
import type { AuditTrailFilters } from './audit-trail-filters.js';

export type AuditTrailRecord = Omit<AuditTrailTable, 'seq'>;

const COLUMNS = [
  'id', 'organization_name', 'timestamp', 'accessor_id', 'actor_name', 'actor_kind', 'request_id', 'resource_id', 'resource_type', 'action', 'meta',
] as const;

/** SQL of the audit trail (migration 023). Written in the caller's transaction; read in the order written. */
export class AuditTrailRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(executor: Executor, rows: readonly AuditTrailRow[]): Promise<void> {
    if (rows.length === 0) return;
    await executor.insertInto('audit_trail').values([...rows]).execute();
  }

  /**
   * A page of an organization's trail, oldest first; `since`: only entries after that time (a `toISOString()` form);
   * `filters`: only those of that actor (by name or id) and of those resource types.
   */
  async page(
    organizationName: string,
    since: string | undefined,
    filters: AuditTrailFilters,
    offset: number,
    limit: number,
  ): Promise<{ rows: AuditTrailRecord[]; total: number }> {
    let query = this.db.selectFrom('audit_trail').where('organization_name', '=', organizationName);
    if (since !== undefined) query = query.where('timestamp', '>', since);
    const actor = filters.actor;
    if (actor !== undefined) query = query.where((eb) => eb.or([eb('actor_name', '=', actor), eb('accessor_id', '=', actor)]));
    if (filters.types !== undefined) query = query.where('resource_type', 'in', filters.types);
    const rows = await query.select(COLUMNS).orderBy('seq').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }
}
