import type { TeamPermissions } from '../../access/team-permissions.js';
import type { Resource } from '../jsonapi.js';
import type { OrganizationAccess } from '../../access/organization-access.js';
import type { TeamMember, TeamRow } from '../../teams/teams.repository.js';

/** Everything a team document shows, gathered by the service. */
export interface TeamView {
  row: TeamRow;
  access: OrganizationAccess;
  /** Active members only. */
  members: TeamMember[];
  /** The `api-team_…` account when the team holds a token: a member in `users`, not a person. */
  serviceAccountUserId: string | null;
}

/** One shape for list, show, create and update (CONTRACT 5: go-tfe compares them field by field). */
export function teamResource(view: TeamView, permissions: TeamPermissions): Resource {
  const { row } = view;
  const userIds = view.members.map((member) => member.userId);
  if (view.serviceAccountUserId) userIds.push(view.serviceAccountUserId);
  return {
    id: row.id,
    type: 'teams',
    attributes: {
      name: row.name,
      'sso-team-id': row.sso_team_id,
      'users-count': userIds.length,
      'non-service-users-count': view.members.length,
      visibility: row.visibility,
      'allow-member-token-management': row.allow_member_token_management === 1,
      permissions,
      'organization-access': view.access,
    },
    relationships: {
      organization: { data: { id: row.organization_name, type: 'organizations' } },
      users: { data: userIds.map((id) => ({ id, type: 'users' })) },
      'organization-memberships': { data: view.members.map((member) => ({ id: member.membershipId, type: 'organization-memberships' })) },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${row.id}` },
  };
}
