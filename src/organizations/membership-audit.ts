import type { Principal } from '../core/principal.js';
import { actorOf } from '../record/actor.js';
import type { AuditEntry } from '../record/audit-trail.js';
import type { UserRow } from '../identity/users.repository.js';
import type { MembershipRow } from './memberships.repository.js';

/** The audit trail's entries about organization memberships (record/audit-trail.ts): who was invited, joined or removed. */
export function membershipChanged(
  principal: Principal,
  membership: MembershipRow,
  action: 'invite' | 'accept' | 'destroy',
  details: { user?: Pick<UserRow, 'id' | 'username' | 'email'>; teamIds?: string[] } = {},
): AuditEntry {
  const meta: Record<string, unknown> = { 'user-id': membership.user_id };
  if (details.user) {
    meta.username = details.user.username;
    meta.email = details.user.email;
  }
  if (details.teamIds) meta.teams = details.teamIds;
  return {
    organizationName: membership.organization_name,
    actor: actorOf(principal),
    resource: { id: membership.id, type: 'organization_membership', action, meta },
  };
}
