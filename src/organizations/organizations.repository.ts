import type { Kysely, Transaction } from 'kysely';
import { codePointOrder } from '../db/ordering.js';
import type { Database, OrganizationsTable } from '../db/schema.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';
import { compiledOnce } from '../db/compiled-query.js';
import type { Dialect } from '../db/database.js';
import { forUpdate } from '../db/row-lock.js';

export type OrganizationRow = OrganizationsTable;

const ORG_COLUMNS = ['name', 'name_lower', 'email', 'feature_set', 'created_at', 'updated_at', 'default_execution_mode', 'settings'] as const;

export class OrganizationsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  // Every organization-scoped request starts here: its SQL is built once (compiled-query.ts).
  private readonly byName = compiledOnce((p: { name: string }) => this.db.selectFrom('organizations').select(ORG_COLUMNS).where('name', '=', p.name));

  /** Lookups are exact on the stored name, the organization's id in every URL. */
  async findByName(name: string): Promise<OrganizationRow | undefined> {
    return (await this.byName(this.db, { name })).rows[0];
  }

  async insert(trx: Transaction<Database>, row: OrganizationRow): Promise<void> {
    await trx.insertInto('organizations').values(row).execute();
  }

  /**
   * How many existing organizations the user created, read with the user's row locked (`FOR UPDATE` on
   * PostgreSQL; SQLite's write transactions hold the database's lock anyway), so a concurrent create by the
   * same user waits for this transaction to commit and then counts its organization too.
   */
  async countCreatedByLocked(trx: Transaction<Database>, userId: string): Promise<number> {
    await forUpdate(trx.selectFrom('users').select('id').where('id', '=', userId), this.dialect).execute();
    const row = await trx
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_by_user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async update(name: string, changes: Partial<Pick<OrganizationRow, 'email' | 'feature_set' | 'updated_at' | 'default_execution_mode' | 'settings'>>, executor: Kysely<Database> | Transaction<Database> = this.db): Promise<void> {
    await executor.updateTable('organizations').set(changes).where('name', '=', name).execute();
  }

  async delete(name: string): Promise<void> {
    // Cascades through everything the organization holds, runs in progress included: see retryOnDeadlock.
    await retryOnDeadlock(() => this.db.deleteFrom('organizations').where('name', '=', name).execute());
  }

  /** All organizations (site admin) or those in `names`. */
  async list(filter: { names?: string[] }, offset: number, limit: number): Promise<{ rows: OrganizationRow[]; total: number }> {
    if (filter.names && filter.names.length === 0) return { rows: [], total: 0 };
    let query = this.db.selectFrom('organizations');
    if (filter.names) query = query.where('name', 'in', filter.names);
    const rows = await query.select(ORG_COLUMNS).orderBy(codePointOrder(this.db, 'name_lower')).limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** Organizations where the user is an active member. */
  async namesForUser(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('organization_memberships')
      .select('organization_name')
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .execute();
    return rows.map((row) => row.organization_name);
  }
}
