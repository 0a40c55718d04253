import type { TeamPermissions } from '../../access/team-permissions.js';
import type { Resource } from '../jsonapi.js';
import type { Team } from '../../teams/team.js';
import type { TeamMember } from '../../teams/teams.repository.js';

/** Everything a team document shows, gathered by the service. */
export interface TeamView {
  team: Team;
  /** Active members only. */
  members: TeamMember[];
  /** The `api-team_…` account when the team holds a token: a member in `users`, not a person. */
  serviceAccountUserId: string | null;
}

/** One shape for list, show, create and update (CONTRACT 5: go-tfe compares them field by field). */
export function teamResource(view: TeamView, permissions: TeamPermissions): Resource {
  const { team } = view;
  const userIds = view.members.map((member) => member.userId);
  if (view.serviceAccountUserId) userIds.push(view.serviceAccountUserId);
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      'sso-team-id': team.ssoTeamId,
      'users-count': userIds.length,
      'non-service-users-count': view.members.length,
      visibility: team.visibility,
      'allow-member-token-management': team.allowMemberTokenManagement,
      permissions,
      'organization-access': team.access,
    },
    relationships: {
      organization: { data: { id: team.organizationName, type: 'organizations' } },
      users: { data: userIds.map((id) => ({ id, type: 'users' })) },
      'organization-memberships': { data: view.members.map((member) => ({ id: member.membershipId, type: 'organization-memberships' })) },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}
