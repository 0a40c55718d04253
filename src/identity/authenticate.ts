import type { FastifyRequest } from 'fastify';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { editionHasTeam, featureSetOf } from '../access/editions.js';
import type { AnyPrincipal, Principal } from '../core/principal.js';
import { digestMatchesHash, hashToken } from './token-secrets.js';
import type { TokensRepository } from './tokens.repository.js';

/** The bearer token of a request, if it carries one in the only form we accept. */
export function bearerToken(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export interface KnownToken {
  principal: AnyPrincipal;
  expiredAt: string | null;
}

/**
 * Turns a bearer token into a Principal, or throws 401 for a missing, unknown, revoked or expired one.
 * Team tokens carry their team's organization; a deleted team's tokens are gone with it, and those of a team
 * its organization's edition does not have authenticate nothing (401) until an upgrade.
 */
export class Authenticator {
  constructor(private readonly tokens: TokensRepository) {}

  /**
   * For every route but the audit trail's: an audit trail token authenticates nothing here (401), so no
   * service, gate or verdict ever meets one.
   */
  async authenticate(token: string | undefined, options: { agentToken?: boolean; readToken?: TokenRead } = {}): Promise<Principal> {
    const principal = await this.authenticateAny(token, options.readToken);
    if (principal.kind === 'audit-trail') throw Errors.auditTrailTokenReadsOnlyAuditTrail();
    // An agent token authenticates only on the pipeline protocol's routes (http/agent-token-routes.ts).
    if (principal.kind === 'agent' && options.agentToken !== true) throw Errors.agentTokenDrivesOnlyPipelines();
    return principal;
  }

  /**
   * Any kind of token, the audit trail token too: only for routes that declare they take it. `readToken`: a
   * statement that reads the token's row along with what the request needs next (team-read-with-credential.ts).
   */
  async authenticateAny(token: string | undefined, readToken: TokenRead = (digest) => this.tokens.findForAuthentication(digest)): Promise<AnyPrincipal> {
    if (!token || token.length > 512) throw Errors.tokenInvalid();
    const digest = hashToken(token);
    const known = await this.lookUp(digest, readToken);
    if (!known) throw Errors.tokenInvalid();
    if (known.expiredAt && known.expiredAt <= nowIso()) throw Errors.tokenExpired();
    return known.principal;
  }

  /** One query: the token with its user or team, whichever it belongs to. */
  private async lookUp(digest: string, readToken: TokenRead): Promise<KnownToken | undefined> {
    const row = await readToken(digest);
    if (!row || !digestMatchesHash(digest, row.token_hash)) return undefined;
    const principal = principalOf(row);
    return principal && { principal, expiredAt: row.expired_at };
  }
}

/** Reads a token's row as authentication needs it, by the digest of the token (token-secrets.ts). */
export type TokenRead = (digest: string) => Promise<AuthenticationRow | undefined>;

/** A token as authentication reads it, with its user or team (tokens.repository.ts `findForAuthentication`). */
export type AuthenticationRow = NonNullable<Awaited<ReturnType<TokensRepository['findForAuthentication']>>>;

function principalOf(row: AuthenticationRow): AnyPrincipal | undefined {
  switch (row.kind) {
    case 'site':
      return { kind: 'site-admin', tokenId: row.id };
    case 'user':
      if (!row.user_id || row.username === null) return undefined;
      return { kind: 'user', tokenId: row.id, userId: row.user_id, username: row.username };
    case 'organization':
      return { kind: 'organization', tokenId: row.id, organizationName: row.organization_name! };
    case 'audit-trail':
      return { kind: 'audit-trail', tokenId: row.id, organizationName: row.organization_name! };
    case 'agent':
      if (!row.agent_pool_id || !row.organization_name) return undefined;
      return { kind: 'agent', tokenId: row.id, organizationName: row.organization_name, agentPoolId: row.agent_pool_id };
    case 'team':
      if (!row.team_id || !row.team_organization || row.team_feature_set === null || row.team_is_owners === null) return undefined;
      if (!editionHasTeam(featureSetOf({ feature_set: row.team_feature_set }), { isOwners: row.team_is_owners === 1 })) return undefined;
      return {
        kind: 'team',
        tokenId: row.id,
        organizationName: row.team_organization,
        teamId: row.team_id,
        serviceAccountUserId: row.service_account_user_id,
        actsAsPerson: row.acts_as_person === 1,
      };
  }
}
