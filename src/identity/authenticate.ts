import type { FastifyRequest } from 'fastify';
import { nowIso } from '../clock.js';
import { Unauthorized } from '../http/errors.js';
import type { Principal } from './principal.js';
import { hashToken, tokenMatchesHash } from './token-secrets.js';
import type { TokensRepository } from './tokens.repository.js';

/** The bearer token of a request, if it carries one in the only form we accept. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Turns a bearer token into a Principal, or throws 401 for a missing, unknown, revoked or expired one.
 * Team tokens carry their team's organization; a deleted team's tokens are gone with it.
 */
export class Authenticator {
  constructor(private readonly tokens: TokensRepository) {}

  /** One query: the token with its user or team, whichever it belongs to. */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token || token.length > 512) throw new Unauthorized();
    const row = await this.tokens.findForAuthentication(hashToken(token));
    if (!row || !tokenMatchesHash(token, row.token_hash)) throw new Unauthorized();
    if (row.expired_at && row.expired_at <= nowIso()) throw new Unauthorized('token has expired');
    switch (row.kind) {
      case 'site':
        return { kind: 'site-admin', tokenId: row.id };
      case 'user':
        if (!row.user_id || row.username === null) throw new Unauthorized();
        return { kind: 'user', tokenId: row.id, userId: row.user_id, username: row.username };
      case 'organization':
        return { kind: 'organization', tokenId: row.id, organizationName: row.organization_name! };
      case 'team':
        if (!row.team_id || !row.team_organization) throw new Unauthorized();
        return {
          kind: 'team',
          tokenId: row.id,
          organizationName: row.team_organization,
          teamId: row.team_id,
          serviceAccountUserId: row.service_account_user_id,
        };
    }
  }
}
