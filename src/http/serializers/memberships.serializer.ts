import type { Resource } from '../jsonapi.js';
import type { MembershipView } from '../../organizations/membership-view.js';

/** An organization membership; its `teamIds` are already limited to teams the caller may see. */
export function membershipResource({ membership, user, teamIds, permissions }: MembershipView): Resource {
  return {
    id: membership.id,
    type: 'organization-memberships',
    attributes: {
      status: membership.status,
      email: user?.email ?? null,
      'created-at': membership.created_at,
      // A Teamstage extension (HCP shows none): whether the caller may remove it, as the console must know.
      permissions,
    },
    relationships: {
      user: { data: { id: membership.user_id, type: 'users' } },
      organization: { data: { id: membership.organization_name, type: 'organizations' } },
      teams: { data: teamIds.map((id) => ({ id, type: 'teams' })) },
      // A Teamstage extension (HCP names no inviter): the user who invited them; null before migration 048 or
      // for an invitation by a token that is no user (docs/console.md, "Audit filters, locks and invitations").
      'invited-by': { data: membership.invited_by_user_id ? { id: membership.invited_by_user_id, type: 'users' } : null },
    },
    links: { self: `/api/v2/organization-memberships/${membership.id}` },
  };
}
