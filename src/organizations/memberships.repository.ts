import type { Kysely } from 'kysely';
import { containsText } from '../db/like.js';
import { codePointOrder } from '../db/ordering.js';
import type { Database, MembershipStatus, OrganizationMembershipsTable } from '../db/schema.js';

export type MembershipRow = OrganizationMembershipsTable;

const MEMBERSHIP_COLUMNS = [
  'organization_memberships.id',
  'organization_memberships.organization_name',
  'organization_memberships.user_id',
  'organization_memberships.status',
  'organization_memberships.created_at',
  'organization_memberships.invited_by_user_id',
] as const;

export interface MembershipListFilter {
  organizationName: string;
  q?: string;
  status?: MembershipStatus;
  emails?: string[];
}

export class MembershipsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: MembershipRow, executor: Kysely<Database> = this.db): Promise<void> {
    await executor.insertInto('organization_memberships').values(row).execute();
  }

  findById(id: string): Promise<MembershipRow | undefined> {
    return this.db.selectFrom('organization_memberships').select(MEMBERSHIP_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findByUser(organizationName: string, userId: string): Promise<MembershipRow | undefined> {
    return this.db
      .selectFrom('organization_memberships')
      .select(MEMBERSHIP_COLUMNS)
      .where('organization_name', '=', organizationName)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async findManyByIds(ids: readonly string[]): Promise<MembershipRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('organization_memberships').select(MEMBERSHIP_COLUMNS).where('id', 'in', [...ids]).execute();
  }

  async activate(id: string, executor: Kysely<Database> = this.db): Promise<void> {
    await executor.updateTable('organization_memberships').set({ status: 'active' }).where('id', '=', id).execute();
  }

  /** Deleting a membership removes its team memberships too (foreign key cascade). */
  async delete(id: string, executor: Kysely<Database> = this.db): Promise<void> {
    await executor.deleteFrom('organization_memberships').where('id', '=', id).execute();
  }

  async list(filter: MembershipListFilter, offset: number, limit: number): Promise<{ rows: MembershipRow[]; total: number }> {
    let query = this.db
      .selectFrom('organization_memberships')
      .innerJoin('users', 'users.id', 'organization_memberships.user_id')
      .where('organization_memberships.organization_name', '=', filter.organizationName);
    if (filter.status) query = query.where('organization_memberships.status', '=', filter.status);
    if (filter.emails && filter.emails.length > 0) {
      query = query.where('users.email_lower', 'in', filter.emails.map((email) => email.toLowerCase()));
    }
    if (filter.q) {
      const text = filter.q.toLowerCase();
      query = query.where((eb) =>
        eb.or([containsText(eb.ref('users.username_lower'), text), containsText(eb.ref('users.email_lower'), text)]),
      );
    }
    const rows = await query
      .select(MEMBERSHIP_COLUMNS)
      .orderBy(codePointOrder(this.db, 'users.username_lower'))
      .orderBy(codePointOrder(this.db, 'organization_memberships.id'))
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** Team ids of each membership. */
  async teamIdsOf(membershipIds: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    if (membershipIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('team_memberships')
      .select(['organization_membership_id', 'team_id'])
      .where('organization_membership_id', 'in', [...membershipIds])
      .execute();
    for (const row of rows) {
      const list = result.get(row.organization_membership_id) ?? [];
      list.push(row.team_id);
      result.set(row.organization_membership_id, list);
    }
    return result;
  }
}

