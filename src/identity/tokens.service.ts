import { requireAccess, requirePersonalAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import { Errors } from '../core/errors.js';
import { tokenExpiry } from './token-expiry.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import { ensureServiceAccount } from './service-accounts.js';
import { generateToken, hashToken } from './token-secrets.js';
import type { TeamTokenPort, TokenTeam, VisibleTokenTeam } from './team-token-port.js';
import type { TokenRow, TokensRepository } from './tokens.repository.js';
import type { UserRow, UsersRepository } from './users.repository.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { tokenChanged } from './token-audit.js';
import { provenVisible, provenWritable, type Visible, type Writable } from '../access/lookup-proofs.js';

/** A token just created, with its secret: the only moment the secret exists outside its hash. */
export interface IssuedToken {
  row: TokenRow;
  secret: string;
}

/** What a token create takes (every kind): the body's attributes, any of them absent. */
export interface TokenInput {
  description?: string | null;
  'expired-at'?: string | null;
}

/** The two tokens an organization may hold at once, each replacing only its own kind. */
export type OrganizationTokenKind = 'organization' | 'audit-trail';

function createdById(principal: Principal): string | null {
  if (principal.kind === 'user') return principal.userId;
  if (principal.kind === 'team') return principal.serviceAccountUserId;
  return null;
}

/** The team of a team-token request, once the caller may manage its tokens (403 otherwise). */
function manageableTeam({ row, standing }: VisibleTokenTeam): TokenTeam {
  requireAccess(standing, 'team', 'manage-tokens', row);
  return row;
}

/** The organization of an organization-token request, once the caller is an owner (403 otherwise). */
function ownedOrganization({ organization, standing }: OrganizationContext): OrganizationContext['organization'] {
  requireAccess(standing, 'organization', 'administer', { name: organization.name });
  return organization;
}

/** The orders an organization's team token list takes (`sort`), by the attribute they are named after. */
const TEAM_TOKEN_SORTS: Record<string, 'created_at' | 'expired_at' | 'last_used_at'> = {
  'created-at': 'created_at',
  'expired-at': 'expired_at',
  'last-used-at': 'last_used_at',
};

/** Issuing and revoking user, organization and team tokens. Each secret is returned once and stored hashed. */
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly users: UsersRepository,
    private readonly teams: TeamTokenPort,
    private readonly gate: OrganizationGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  private newRow(kind: TokenRow['kind'], fields: Partial<TokenRow>): { row: TokenRow; secret: string } {
    const secret = generateToken();
    const row: TokenRow = {
      id: newId('at'),
      kind,
      token_hash: hashToken(secret),
      user_id: null,
      organization_name: null,
      team_id: null,
      is_legacy: 0,
      description: null,
      created_by_id: null,
      created_at: nowIso(),
      expired_at: null,
      last_used_at: null,
      acts_as_person: 1,
      ...fields,
    };
    return { row, secret };
  }

  /** The `user` lookup: a person whose tokens the caller may manage (themselves, or anyone for a site admin). */
  async tokenOwner(principal: Principal, userId: string): Promise<Writable<UserRow>> {
    requirePersonalAccess(principal, 'manage-user-tokens', userId);
    const user = await this.users.findById(userId);
    if (!user || user.is_service_account === 1) throw Errors.userNotFound();
    return provenWritable(provenVisible(user));
  }

  async createUserToken(user: Writable<UserRow>, input: TokenInput): Promise<IssuedToken> {
    const { row, secret } = this.newRow('user', {
      user_id: user.id,
      description: input.description ?? null,
      created_by_id: user.id,
      expired_at: tokenExpiry(input['expired-at']),
    });
    await this.tokens.insert(row);
    return { row, secret };
  }

  async listUserTokens(user: Visible<UserRow>): Promise<TokenRow[]> {
    return this.tokens.listForUser(user.id);
  }

  /** The organization token, or the audit trail token (`kind`): each replaces only the previous one of its kind. */
  async createOrganizationToken(principal: Principal, found: OrganizationContext, kind: OrganizationTokenKind, input: TokenInput): Promise<IssuedToken> {
    const organization = ownedOrganization(found);
    const serviceAccount = await ensureServiceAccount(this.users, { kind: 'organization', organizationName: organization.name });
    const { row, secret } = this.newRow(kind, {
      organization_name: organization.name,
      created_by_id: createdById(principal) ?? serviceAccount,
      expired_at: tokenExpiry(input['expired-at']),
    });
    await this.tokens.replaceSingle(row, { organizationName: organization.name }, (trx, replaced) =>
      this.auditTrail.record(trx, tokenChanged(principal, organization.name, row, replaced ? 'regenerate' : 'create')),
    );
    return { row, secret };
  }

  /** Its metadata, never its secret; 404 when the organization has none of that kind. */
  async showOrganizationToken(found: OrganizationContext, kind: OrganizationTokenKind): Promise<TokenRow> {
    const organization = ownedOrganization(found);
    const row = await this.tokens.findOrganizationToken(organization.name, kind);
    if (!row) throw Errors.tokenNotFound();
    return row;
  }

  /**
   * Every team token of the organization's teams (go-tfe's `TeamTokens.List`), for its owners: `q` filters
   * on the team's name, `sort` is `created-at`, `expired-at` or `last-used-at`, `-` first for descending.
   */
  async listOrganizationTeamTokens(found: OrganizationContext, options: { q?: string; sort?: string; page: PageRequest }): Promise<Page<TokenRow>> {
    const organization = ownedOrganization(found);
    const sort = options.sort ?? 'created-at';
    const column = TEAM_TOKEN_SORTS[sort.replace(/^-/, '')];
    if (!column) throw Errors.unknownTeamTokenSort(sort);
    const { rows, total } = await this.tokens.listTeamTokensInOrganization(organization.name, {
      q: options.q?.toLowerCase(),
      order: { column, descending: sort.startsWith('-') },
      offset: options.page.offset,
      limit: options.page.size,
    });
    return pageOf(options.page, rows, total);
  }

  /** Revokes the token of that kind only (404 when there is none); the other kind stays. */
  async deleteOrganizationToken(found: OrganizationContext, kind: OrganizationTokenKind): Promise<void> {
    const organization = ownedOrganization(found);
    const deleted = await this.auditTrail.transaction(async (trx) => {
      const rows = await this.tokens.deleteOrganizationTokens(organization.name, kind, trx);
      return { result: rows.length, entries: rows.map((row) => tokenChanged(found.standing.principal, organization.name, row, 'destroy')) };
    });
    if (deleted === 0) throw Errors.tokenNotFound();
  }

  /** `legacy`: the single-token endpoint, which replaces the team's previous legacy token. */
  async createTeamToken(principal: Principal, found: VisibleTokenTeam, input: TokenInput, legacy: boolean): Promise<IssuedToken> {
    const team = manageableTeam(found);
    const { standing } = found;
    // Not for a team the edition lacks, nor the owners team's for a caller that is not a person.
    requireAccess(standing, 'team', 'create-token', team);
    const description = input.description ?? null;
    if (description !== null && description.length > 255) {
      throw Errors.tokenDescriptionTooLong();
    }
    const serviceAccountId = await this.teamServiceAccount(team.id, team.serviceAccountUserId);
    const { row, secret } = this.newRow('team', {
      team_id: team.id,
      organization_name: team.organizationName,
      is_legacy: legacy ? 1 : 0,
      description: legacy ? null : description,
      created_by_id: createdById(principal) ?? serviceAccountId,
      expired_at: tokenExpiry(input['expired-at']),
      // Whatever a minted token may do, its minter could then do: it is no more a person than the minter.
      acts_as_person: standing.actsAsPerson ? 1 : 0,
    });
    try {
      if (legacy) {
        await this.tokens.replaceSingle(row, { legacyTeamId: team.id }, (trx, replaced) =>
          this.auditTrail.record(trx, tokenChanged(principal, team.organizationName, row, replaced ? 'regenerate' : 'create')),
        );
      } else {
        await this.auditTrail.transaction(async (trx) => {
          await this.tokens.insert(row, trx);
          return { result: undefined, entries: [tokenChanged(principal, team.organizationName, row, 'create')] };
        });
      }
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw Errors.tokenDescriptionTaken();
      }
      throw error;
    }
    return { row, secret };
  }

  async listTeamTokens(found: VisibleTokenTeam): Promise<TokenRow[]> {
    const team = manageableTeam(found);
    return this.tokens.listForTeam(team.id);
  }

  /** The legacy token's metadata, never its secret; 404 when the team has none. */
  async showLegacyTeamToken(found: VisibleTokenTeam): Promise<TokenRow> {
    const team = manageableTeam(found);
    const row = await this.tokens.findLegacyTeamToken(team.id);
    if (!row) throw Errors.tokenNotFound();
    return row;
  }

  /** 404 when the team has no legacy token (HCP's answer, which go-tfe's tests check). */
  async deleteLegacyTeamToken(found: VisibleTokenTeam): Promise<void> {
    const team = manageableTeam(found);
    const deleted = await this.auditTrail.transaction(async (trx) => {
      const rows = await this.tokens.deleteLegacyTeamToken(team.id, trx);
      return { result: rows.length, entries: rows.map((row) => tokenChanged(found.standing.principal, team.organizationName, row, 'destroy')) };
    });
    if (deleted === 0) throw Errors.tokenNotFound();
  }

  /**
   * A user token or a team token, by its id. A team token's removal is on its organization's audit trail; a
   * user's own tokens belong to no organization, so no organization's trail holds them.
   */
  async deleteToken(principal: Principal, row: Writable<TokenRow>): Promise<void> {
    const organizationName = row.kind === 'agent' ? row.organization_name ?? undefined : row.kind !== 'team' ? undefined : row.organization_name ?? (row.team_id ? (await this.teams.findById(row.team_id))?.organizationName : undefined);
    await this.auditTrail.transaction(async (trx) => {
      const deleted = await this.tokens.deleteById(row.id, trx);
      return { result: undefined, entries: deleted > 0 && organizationName ? [tokenChanged(principal, organizationName, row, 'destroy')] : [] };
    });
  }

  private agentTokens?: (principal: Principal, row: TokenRow) => Promise<void>;

  /** The agent pools domain says who manages an agent token (agentpools/agent-pools.service.ts). */
  registerAgentTokens(check: (principal: Principal, row: TokenRow) => Promise<void>): void {
    this.agentTokens = check;
  }

  /** The `token` lookup: a token the caller may manage, its own user token or a token of a team it may manage. */
  async manageableToken(principal: Principal, tokenId: string): Promise<Writable<TokenRow>> {
    const row = await this.tokens.findById(tokenId);
    if (row?.kind === 'agent') {
      // An agent pool's token: managed by whoever manages its pool (a higher layer's rule, plugged in at wiring).
      if (!this.agentTokens) throw Errors.tokenNotFound();
      await this.agentTokens(principal, row);
      return provenWritable(provenVisible(row));
    }
    if (row?.kind === 'user') {
      requirePersonalAccess(principal, 'manage-user-token', row.user_id ?? '');
      return provenWritable(provenVisible(row));
    }
    const team = row?.kind === 'team' && row.team_id ? await this.teams.findById(row.team_id) : undefined;
    // An organization token is managed through its organization, never by its id.
    if (!row || !team) throw Errors.tokenNotFound();
    await this.gate.enterFor(principal, team.organizationName, 'team-token', 'manage', team);
    return provenWritable(provenVisible(row));
  }

  private async teamServiceAccount(teamId: string, existing: string | null): Promise<string> {
    if (existing) return existing;
    const id = await ensureServiceAccount(this.users, { kind: 'team', teamId });
    await this.teams.setServiceAccount(teamId, id);
    return id;
  }
}
