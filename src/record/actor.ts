import { idSuffix } from '../core/ids.js';
import type { Principal } from '../core/principal.js';

/**
 * Who did something, as the record shows it: the user behind it (a person, or a team token's service
 * account: HCP's `actor` is always a user) and the name to print. Null for what Teamstage did by itself.
 */
export interface Actor {
  userId: string | null;
  name: string;
  /** The kind of token: `user`, `team`, `organization`, `site-admin`, `audit-trail`. */
  kind: string;
  /** The token it acted with: the audit trail names it when there is no user (an organization token, the site admin). */
  tokenId?: string;
}

export function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case 'user':
      return { userId: principal.userId, name: principal.username, kind: 'user', tokenId: principal.tokenId };
    case 'team':
      return { userId: principal.serviceAccountUserId, name: `api-team_${idSuffix(principal.teamId)}`, kind: 'team', tokenId: principal.tokenId };
    case 'organization':
      return { userId: null, name: `api-org_${principal.organizationName}`, kind: 'organization', tokenId: principal.tokenId };
    case 'site-admin':
      return { userId: null, name: 'site-admin', kind: 'site-admin', tokenId: principal.tokenId };
    case 'agent':
      return { userId: null, name: `api-agent-pool_${idSuffix(principal.agentPoolId)}`, kind: 'agent', tokenId: principal.tokenId };
    default:
      // A token kind added later (the audit-trail token) reads only; it never acts.
      return { userId: null, name: (principal as { kind: string }).kind, kind: (principal as { kind: string }).kind };
  }
}
