import type { Resource } from '../jsonapi.js';
import type { UserRow } from '../../identity/users.repository.js';
import type { MembershipRow } from '../../organizations/memberships.repository.js';

/** An organization membership; `teamIds` must already be limited to teams the caller may see. */
export function membershipResource(membership: MembershipRow, user: UserRow | undefined, teamIds: string[]): Resource {
  return {
    id: membership.id,
    type: 'organization-memberships',
    attributes: {
      status: membership.status,
      email: user?.email ?? null,
      'created-at': membership.created_at,
    },
    relationships: {
      user: { data: { id: membership.user_id, type: 'users' } },
      organization: { data: { id: membership.organization_name, type: 'organizations' } },
      teams: { data: teamIds.map((id) => ({ id, type: 'teams' })) },
    },
    links: { self: `/api/v2/organization-memberships/${membership.id}` },
  };
}
