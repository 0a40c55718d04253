import type { FastifyRequest } from 'fastify';
import { nowIso } from '../clock.js';
import { Unauthorized } from '../http/errors.js';
import type { Principal } from './principal.js';
import { hashToken, tokenMatchesHash } from './token-secrets.js';
import type { TokensRepository } from './tokens.repository.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

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
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tokens: TokensRepository,
  ) {}

  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token || token.length > 512) throw new Unauthorized();
    const digest = hashToken(token);
    const row = await this.tokens.findByHash(digest);
    if (!row || !tokenMatchesHash(token, row.token_hash)) throw new Unauthorized();
    if (row.expired_at && row.expired_at <= nowIso()) throw new Unauthorized('token has expired');
    switch (row.kind) {
      case 'site':
        return { kind: 'site-admin', tokenId: row.id };
      case 'user': {
        const user = await this.db.selectFrom('users').select(['id', 'username']).where('id', '=', row.user_id!).executeTakeFirst();
        if (!user) throw new Unauthorized();
        return { kind: 'user', tokenId: row.id, userId: user.id, username: user.username };
      }
      case 'organization':
        return { kind: 'organization', tokenId: row.id, organizationName: row.organization_name! };
      case 'team': {
        const team = await this.db
          .selectFrom('teams')
          .select(['id', 'organization_name', 'service_account_user_id'])
          .where('id', '=', row.team_id!)
          .executeTakeFirst();
        if (!team) throw new Unauthorized();
        return {
          kind: 'team',
          tokenId: row.id,
          organizationName: team.organization_name,
          teamId: team.id,
          serviceAccountUserId: team.service_account_user_id,
        };
      }
    }
  }
}
