import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';
import { compiledOnce, compiledPerShape, fixed } from '../db/compiled-query.js';
import { containsText } from '../db/like.js';
import { codePointOrder } from '../db/ordering.js';
import { forUpdate } from '../db/row-lock.js';
import type { Database, TeamsTable } from '../db/schema.js';
import { teamFromRow, type Team, type TeamMember } from './team.js';
import { readTeamForCaller, type TeamReader, type TeamReadForCaller } from './team-read-for-caller.js';
import { readTeamWithCredential, type TeamReadWithCredential } from './team-read-with-credential.js';
import { updateTeamIfUnchanged } from './team-conditional-update.js';
import type { AuditTrailRow } from '../record/audit-trail.js';

/** A team as stored: what inserts write. Reads answer a `Team` (team.ts). */
export type TeamRow = TeamsTable;
export type TeamChanges = Partial<Omit<TeamRow, 'id' | 'organization_name' | 'is_owners'>>;

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const TEAM_COLUMNS = [
  'teams.id', 'teams.organization_name', 'teams.name', 'teams.name_lower', 'teams.sso_team_id', 'teams.visibility',
  'teams.allow_member_token_management', 'teams.organization_access', 'teams.is_owners', 'teams.service_account_user_id',
  'teams.created_at', 'teams.updated_at',
] as const;

export interface TeamListFilter {
  organizationName: string;
  /** When set, only teams with visibility `organization` or one of these ids (the caller's own). */
  visibleTo?: { teamIds: string[] };
  ownersOnly?: boolean;
  q?: string;
  names?: string[];
}

export class TeamsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(executor: Kysely<Database>, row: TeamRow): Promise<void> {
    await executor.insertInto('teams').values(row).execute();
  }

  /**
   * Inserts the rows in one statement, skipping any whose name its organization already has (or that an
   * earlier row of the same batch takes); answers the ids it inserted. Other errors fail the whole batch.
   */
  async insertUnlessNameTaken(rows: readonly TeamRow[], alsoWrite?: (trx: Kysely<Database>, inserted: Set<string>) => Promise<void>): Promise<Set<string>> {
    // In name order, so two batches meet each other's names in the same order: on PostgreSQL a batch
    // that waits for another's uncommitted name can never be waited for by it (no deadlock).
    const ordered = [...rows].sort(
      (a, b) => compareText(a.organization_name, b.organization_name) || compareText(a.name_lower, b.name_lower),
    );
    const insert = async (executor: Kysely<Database>) => {
      const inserted = await executor
        .insertInto('teams')
        .values(ordered)
        .onConflict((oc) => oc.columns(['organization_name', 'name_lower']).doNothing())
        .returning('id')
        .execute();
      return new Set(inserted.map((row) => row.id));
    };
    if (!alsoWrite) return insert(this.db);
    // `alsoWrite` (the audit trail) goes in the same transaction: it exists exactly when the teams do.
    return this.db.transaction().execute(async (trx) => {
      const inserted = await insert(trx);
      await alsoWrite(trx, inserted);
      return inserted;
    });
  }

  // The statements of every team read: their SQL is built once (compiled-query.ts), not per request.
  private readonly teamById = compiledOnce((p: { id: string }) => this.db.selectFrom('teams').select(TEAM_COLUMNS).where('id', '=', p.id));
  /** One template per number of teams asked for (a page holds at most 100). */
  private readonly membersOf = compiledPerShape(
    (count: number) => String(count),
    (count: number, p: Record<string, string>) =>
      this.db
        .selectFrom('team_memberships')
        .innerJoin('organization_memberships', 'organization_memberships.id', 'team_memberships.organization_membership_id')
        .select(['team_memberships.team_id', 'organization_memberships.user_id', 'organization_memberships.id', 'organization_memberships.status'])
        .where('team_memberships.team_id', 'in', Array.from({ length: count }, (_, i) => p[`id${i}`]!))
        .orderBy('team_memberships.created_at')
        .orderBy('organization_memberships.id'),
  );
  private readonly withTokens = compiledPerShape(
    (count: number) => String(count),
    (count: number, p: Record<string, string>) =>
      this.db
        .selectFrom('tokens')
        .select('team_id')
        .distinct()
        .where('kind', '=', fixed('team' as const))
        .where('team_id', 'in', Array.from({ length: count }, (_, i) => p[`id${i}`]!))
        .where((eb) => eb.or([eb('expired_at', 'is', null), eb('expired_at', '>', p.now!)])),
  );

  /** A caller's read of a team, with its organization, the caller's standing there, members and token, in one statement. */
  readForCaller(id: string, reader: TeamReader, now: string): Promise<TeamReadForCaller | undefined> {
    return readTeamForCaller(this.db, this.dialect, id, reader, now);
  }

  /** The request's token and its caller's read of the team, in one statement (team-read-with-credential.ts). */
  readWithCredential(tokenDigest: string, id: string, now: string): Promise<TeamReadWithCredential> {
    return readTeamWithCredential(this.db, this.dialect, tokenDigest, id, now);
  }

  /**
   * `changes` written only if the team is still stored as `read` (every column a decision or the audit entry
   * took from it), with `audit` in the same statement on PostgreSQL, the same transaction on SQLite. Answers
   * the row as stored, or undefined when it changed meanwhile (then `modify` decides again under the lock).
   */
  updateIfUnchanged(read: TeamRow, changes: TeamChanges, audit: AuditTrailRow | undefined): Promise<Team | undefined> {
    return updateTeamIfUnchanged(this.db, this.dialect, read, changes, audit);
  }

  async findById(id: string): Promise<Team | undefined> {
    const row = (await this.teamById(this.db, { id })).rows[0];
    return row && teamFromRow(row);
  }

  async findManyByIds(ids: readonly string[]): Promise<Team[]> {
    if (ids.length === 0) return [];
    return (await this.db.selectFrom('teams').select(TEAM_COLUMNS).where('id', 'in', [...ids]).execute()).map(teamFromRow);
  }

  async findOwnersTeam(organizationName: string): Promise<Team | undefined> {
    const row = await this.db
      .selectFrom('teams')
      .select(TEAM_COLUMNS)
      .where('organization_name', '=', organizationName)
      .where('is_owners', '=', 1)
      .executeTakeFirst();
    return row && teamFromRow(row);
  }

  async update(id: string, changes: TeamChanges): Promise<void> {
    await this.db.updateTable('teams').set(changes).where('id', '=', id).execute();
  }

  /**
   * One read-modify-write of a team, atomic on both databases and across nodes: the row is read locked
   * (db/row-lock.ts), `decide` computes the changes from what is stored now (or throws to refuse, and
   * nothing is written), and they are written before the lock is released. Answers the row as stored, or
   * undefined when the team no longer exists. `decide` runs under the lock, so it waits on nothing.
   */
  async modify(
    id: string,
    decide: (current: Team) => TeamChanges,
    alsoWrite?: (trx: Kysely<Database>, before: Team, after: Team) => Promise<void>,
  ): Promise<Team | undefined> {
    return retryOnDeadlock(() =>
      this.db.transaction().execute(async (trx) => {
        const current = await forUpdate(trx.selectFrom('teams').select(TEAM_COLUMNS).where('id', '=', id), this.dialect).executeTakeFirst();
        if (!current) return undefined;
        const changes = decide(teamFromRow(current));
        if (Object.keys(changes).length > 0) await trx.updateTable('teams').set(changes).where('id', '=', id).execute();
        const stored = teamFromRow({ ...current, ...changes });
        // In the same transaction (the audit trail): what it writes exists exactly when the change does.
        await alsoWrite?.(trx, teamFromRow(current), stored);
        return stored;
      }),
    );
  }

  /**
   * Runs `work` in a transaction that holds the organization's owners team locked, given its active members
   * as they are now. Every removal of an owner, by any path, goes through here, so two removals cannot each
   * count the other's owner as the one who stays.
   */
  async withOwnersLocked<T>(organizationName: string, work: (trx: Kysely<Database>, activeOwners: TeamMember[]) => Promise<T>): Promise<T> {
    return retryOnDeadlock(() =>
      this.db.transaction().execute(async (trx) => {
        const owners = await forUpdate(
          trx.selectFrom('teams').select('id').where('organization_name', '=', organizationName).where('is_owners', '=', 1),
          this.dialect,
        ).executeTakeFirst();
        return work(trx, owners ? await this.activeMembers([owners.id], trx) : []);
      }),
    );
  }

  /** Deletes the team with its memberships and tokens. */
  async delete(id: string, alsoWrite?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('tokens').where('team_id', '=', id).execute();
      await trx.deleteFrom('teams').where('id', '=', id).execute();
      await alsoWrite?.(trx);
    });
  }

  async list(filter: TeamListFilter, offset: number, limit: number): Promise<{ teams: Team[]; total: number }> {
    const text = filter.q?.toLowerCase();
    // SQLite: with q, the FTS5 trigram index (migration 005) narrows the candidates first, and the
    // organization is checked on each candidate. Written `+organization_name` so SQLite's planner does not
    // walk the whole organization through its index instead, testing every team against the trigram
    // results (measured at 10,000 teams: 1.1 ms for the page and 0.9 ms for its count, against 0.11 and 0.05).
    const narrowsByTrigram = this.dialect === 'sqlite' && text !== undefined && text.length >= 3;
    let query = narrowsByTrigram
      ? this.db.selectFrom('teams').where(sql<boolean>`+teams.organization_name = ${filter.organizationName}`)
      : this.db.selectFrom('teams').where('teams.organization_name', '=', filter.organizationName);
    if (filter.ownersOnly) query = query.where('teams.is_owners', '=', 1);
    if (filter.visibleTo) {
      const own = filter.visibleTo.teamIds;
      query = query.where((eb) =>
        own.length > 0
          ? eb.or([eb('teams.visibility', '=', 'organization'), eb('teams.id', 'in', own)])
          : eb('teams.visibility', '=', 'organization'),
      );
    }
    if (text !== undefined) {
      query = query.where((eb) => containsText(eb.ref('teams.name_lower'), text));
      // The exact LIKE above still decides, since FTS5's LIKE treats `_` and `%` in the text as wildcards.
      if (narrowsByTrigram) {
        query = query.where(sql<boolean>`teams.rowid in (select rowid from teams_name_fts where name_lower like ${`%${text}%`})`);
      }
    }
    if (filter.names) {
      if (filter.names.length === 0) return { teams: [], total: 0 };
      // filter[names] is exact; names are unique ignoring case, so compare on the lower-cased key.
      query = query.where('teams.name_lower', 'in', filter.names.map((name) => name.toLowerCase()));
    }
    const page = (selected: typeof query) =>
      selected.orderBy(codePointOrder(this.db, 'teams.name_lower')).orderBy(codePointOrder(this.db, 'teams.id')).limit(limit).offset(offset);
    const unfiltered = !filter.q && !filter.names && !filter.ownersOnly;
    if (unfiltered) {
      const rows = await page(query).select(TEAM_COLUMNS).execute();
      return { teams: rows.map(teamFromRow), total: await this.maintainedCount(filter.organizationName, filter.visibleTo?.teamIds) };
    }
    // Filtered: the page carries the number of matches (a window count), so the search runs once, not
    // once more for the count (issue 18: the q= page spent 40% of its time in that second search).
    const rows = await page(query).select([...TEAM_COLUMNS, (eb) => eb.fn.countAll<number>().over().as('matching')]).execute();
    const first = rows[0];
    // A page past the last match has no row to carry the count: counted apart (offset 0: there is none).
    const total = first ? Number(first.matching) : offset === 0 ? 0 : Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { teams: rows.map(teamFromRow), total };
  }

  /**
   * The number of teams a caller sees without filters, from the counts triggers maintain (migration 005):
   * everything, or the visible teams plus the caller's own secret ones. Constant cost at any size.
   */
  private async maintainedCount(organizationName: string, ownTeamIds: string[] | undefined): Promise<number> {
    const counts = await this.db
      .selectFrom('organization_team_counts')
      .select(['teams', 'visible_teams'])
      .where('organization_name', '=', organizationName)
      .executeTakeFirst();
    if (!ownTeamIds) return Number(counts?.teams ?? 0);
    let ownSecret = 0;
    if (ownTeamIds.length > 0) {
      const row = await this.db
        .selectFrom('teams')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_name', '=', organizationName)
        .where('visibility', '=', 'secret')
        .where('id', 'in', ownTeamIds)
        .executeTakeFirstOrThrow();
      ownSecret = Number(row.n);
    }
    return Number(counts?.visible_teams ?? 0) + ownSecret;
  }

  /** Active members of each team; invited users who have not accepted are never members (users, users-count). */
  async activeMembers(teamIds: readonly string[], executor: Kysely<Database> = this.db): Promise<TeamMember[]> {
    return (await this.memberships(teamIds, executor)).filter((member) => member.active);
  }

  /**
   * Every membership of each team, active or invited, in the order team documents list them: a team's
   * `organization-memberships` relationship lists invited ones too (as HCP Terraform does, so the tfe
   * provider sees the invitation it added to the team), its `users` only the active.
   */
  async memberships(teamIds: readonly string[], executor: Kysely<Database> = this.db): Promise<Array<TeamMember & { active: boolean }>> {
    if (teamIds.length === 0) return [];
    if (teamIds.length > MAX_COMPILED_IDS) {
      // Beyond a page: in slices, each a kept template (a team's members all come in its own slice, in order).
      const slices = [];
      for (let start = 0; start < teamIds.length; start += MAX_COMPILED_IDS) slices.push(await this.memberships(teamIds.slice(start, start + MAX_COMPILED_IDS), executor));
      return slices.flat();
    }
    const { rows } = await this.membersOf(executor, teamIds.length, idParams(teamIds));
    return rows.map((row) => ({ teamId: row.team_id, userId: row.user_id, membershipId: row.id, active: row.status === 'active' }));
  }

  /** Teams that currently hold at least one unexpired token: their service account counts as a member. */
  async teamsWithTokens(teamIds: readonly string[], now: string): Promise<Set<string>> {
    if (teamIds.length === 0) return new Set();
    if (teamIds.length > MAX_COMPILED_IDS) {
      const found = new Set<string>();
      for (let start = 0; start < teamIds.length; start += MAX_COMPILED_IDS) {
        for (const id of await this.teamsWithTokens(teamIds.slice(start, start + MAX_COMPILED_IDS), now)) found.add(id);
      }
      return found;
    }
    const { rows } = await this.withTokens(this.db, teamIds.length, { ...idParams(teamIds), now });
    return new Set(rows.map((row) => row.team_id!));
  }

  /** Answers the memberships that joined (not those already in the team). */
  async addMemberships(teamId: string, membershipIds: readonly string[], now: string, executor: Kysely<Database> = this.db): Promise<Set<string>> {
    if (membershipIds.length === 0) return new Set();
    // ON CONFLICT DO NOTHING: adding someone twice, even concurrently, is not an error.
    const added = await executor
      .insertInto('team_memberships')
      .values(membershipIds.map((membershipId) => ({ team_id: teamId, organization_membership_id: membershipId, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .returning('organization_membership_id')
      .execute();
    return new Set(added.map((row) => row.organization_membership_id));
  }

  /** Answers the memberships that left (not those that were not in the team). */
  async removeMemberships(teamId: string, membershipIds: readonly string[], executor: Kysely<Database> = this.db): Promise<Set<string>> {
    if (membershipIds.length === 0) return new Set();
    const removed = await executor
      .deleteFrom('team_memberships')
      .where('team_id', '=', teamId)
      .where('organization_membership_id', 'in', [...membershipIds])
      .returning('organization_membership_id')
      .execute();
    return new Set(removed.map((row) => row.organization_membership_id));
  }
}

/** The largest `in (…)` kept as a template: a page of teams; longer lists go in slices of it. */
const MAX_COMPILED_IDS = 100;

/** `id0`, `id1`, …: the parameters of a compiled `in (…)` over these ids. */
function idParams(ids: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  ids.forEach((id, index) => (params[`id${index}`] = id));
  return params;
}
