import { sql, type Kysely } from 'kysely';
import { containsText } from '../db/like.js';
import { compiledOnce } from '../db/compiled-query.js';
import type { Database, TokensTable } from '../db/schema.js';

export type TokenRow = TokensTable;

const TOKEN_COLUMNS = [
  'id', 'kind', 'token_hash', 'user_id', 'organization_name', 'team_id', 'is_legacy', 'description',
  'created_by_id', 'created_at', 'expired_at', 'last_used_at', 'acts_as_person',
] as const;

export class TokensRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findByHash(tokenHash: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The token with its user or team (and the team's edition), whichever it belongs to: authentication in one query. */
  /** Every authenticated request runs it: its SQL is built once (compiled-query.ts), not per request. */
  private readonly authentication = compiledOnce((p: { tokenHash: string }) =>
    this.db
      .selectFrom('tokens')
      .leftJoin('users', 'users.id', 'tokens.user_id')
      .leftJoin('teams', 'teams.id', 'tokens.team_id')
      .leftJoin('organizations', 'organizations.name', 'teams.organization_name')
      .select([
        'tokens.id', 'tokens.kind', 'tokens.token_hash', 'tokens.expired_at', 'tokens.organization_name', 'tokens.acts_as_person', 'tokens.agent_pool_id',
        'users.id as user_id', 'users.username',
        'teams.id as team_id', 'teams.organization_name as team_organization', 'teams.service_account_user_id',
        'teams.is_owners as team_is_owners', 'organizations.feature_set as team_feature_set',
      ])
      .where('tokens.token_hash', '=', p.tokenHash),
  );

  async findForAuthentication(tokenHash: string) {
    return (await this.authentication(this.db, { tokenHash })).rows[0];
  }

  findById(id: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').select([...TOKEN_COLUMNS, 'agent_pool_id']).where('id', '=', id).executeTakeFirst();
  }

  async insert(row: TokenRow, executor: Kysely<Database> = this.db): Promise<void> {
    await executor.insertInto('tokens').values(row).execute();
  }

  /** How many were deleted (0 or 1). */
  async deleteById(id: string, executor: Kysely<Database> = this.db): Promise<number> {
    const result = await executor.deleteFrom('tokens').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  listForUser(userId: string): Promise<TokenRow[]> {
    return this.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('kind', '=', 'user').where('user_id', '=', userId)
      .orderBy('created_at').orderBy('id').execute();
  }

  /** An agent pool's tokens (issue 36), oldest first. */
  listForAgentPool(agentPoolId: string): Promise<TokenRow[]> {
    return this.db.selectFrom('tokens').select([...TOKEN_COLUMNS, 'agent_pool_id']).where('kind', '=', 'agent').where('agent_pool_id', '=', agentPoolId)
      .orderBy('created_at').orderBy('id').execute();
  }

  listForTeam(teamId: string): Promise<TokenRow[]> {
    return this.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('kind', '=', 'team').where('team_id', '=', teamId)
      .orderBy('created_at').orderBy('id').execute();
  }

  /**
   * The team tokens of an organization's teams (both kinds), `q` a case-insensitive part of the team's name
   * (lower-cased by the caller), ordered by `order` and then by id.
   */
  async listTeamTokensInOrganization(
    organizationName: string,
    options: { q?: string; order: { column: 'created_at' | 'expired_at' | 'last_used_at'; descending: boolean }; offset: number; limit: number },
  ): Promise<{ rows: TokenRow[]; total: number }> {
    let query = this.db
      .selectFrom('tokens')
      .innerJoin('teams', 'teams.id', 'tokens.team_id')
      .where('tokens.kind', '=', 'team')
      .where('teams.organization_name', '=', organizationName);
    if (options.q) query = query.where(containsText(sql.ref('teams.name_lower'), options.q));
    const direction = options.order.descending ? 'desc' : 'asc';
    const rows = await query
      .select(TOKEN_COLUMNS.map((column) => `tokens.${column}` as const))
      .orderBy(`tokens.${options.order.column}`, direction)
      .orderBy('tokens.id', direction)
      .limit(options.limit)
      .offset(options.offset)
      .execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /**
   * Replaces any token of that kind and scope in one transaction (legacy team token, organization token).
   * The scope's row is locked first (a no-op write: a row lock on PostgreSQL, and SQLite's transactions hold
   * the write lock anyway), else two concurrent replacements could each delete only the older token and
   * both insert, leaving two where there is one at a time.
   */
  async replaceSingle(
    row: TokenRow,
    scope: { organizationName?: string; legacyTeamId?: string },
    alsoWrite?: (trx: Kysely<Database>, replaced: boolean) => Promise<void>,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (scope.organizationName) {
        await trx.updateTable('organizations').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('name', '=', scope.organizationName).execute();
      }
      if (scope.legacyTeamId) {
        await trx.updateTable('teams').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', scope.legacyTeamId).execute();
      }
      let removal = trx.deleteFrom('tokens').where('kind', '=', row.kind);
      if (scope.organizationName) removal = removal.where('organization_name', '=', scope.organizationName);
      if (scope.legacyTeamId) removal = removal.where('team_id', '=', scope.legacyTeamId).where('is_legacy', '=', 1);
      const removed = await removal.executeTakeFirst();
      await trx.insertInto('tokens').values(row).execute();
      // In the same transaction (the audit trail), told whether a token was replaced.
      await alsoWrite?.(trx, Number(removed.numDeletedRows) > 0);
    });
  }

  /** Sets `last_used_at` to `at` unless it is already `staleBefore` or later (identity/token-usage.ts). */
  async touch(id: string, at: string, staleBefore: string): Promise<void> {
    await this.db
      .updateTable('tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
      .execute();
  }

  /** The tokens deleted (none: there was none), for the audit trail. */
  deleteOrganizationTokens(organizationName: string, kind: 'organization' | 'audit-trail', executor: Kysely<Database> = this.db): Promise<TokenRow[]> {
    return executor.deleteFrom('tokens').where('kind', '=', kind).where('organization_name', '=', organizationName).returning(TOKEN_COLUMNS).execute();
  }

  findOrganizationToken(organizationName: string, kind: 'organization' | 'audit-trail'): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('kind', '=', kind).where('organization_name', '=', organizationName).executeTakeFirst();
  }

  findLegacyTeamToken(teamId: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').select(TOKEN_COLUMNS).where('kind', '=', 'team').where('team_id', '=', teamId).where('is_legacy', '=', 1)
      .executeTakeFirst();
  }

  /** The tokens deleted (none: there was none), for the audit trail. */
  deleteLegacyTeamToken(teamId: string, executor: Kysely<Database> = this.db): Promise<TokenRow[]> {
    return executor.deleteFrom('tokens').where('kind', '=', 'team').where('team_id', '=', teamId).where('is_legacy', '=', 1).returning(TOKEN_COLUMNS).execute();
  }

  async hasSiteToken(): Promise<boolean> {
    const row = await this.db.selectFrom('tokens').select('id').where('kind', '=', 'site').executeTakeFirst();
    return row !== undefined;
  }

  async deleteSiteTokens(): Promise<void> {
    await this.db.deleteFrom('tokens').where('kind', '=', 'site').execute();
  }
}
