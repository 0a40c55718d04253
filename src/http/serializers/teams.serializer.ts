import type { TeamPermissions } from '../../access/team-permissions.js';
import type { Resource } from '../jsonapi.js';
import type { TeamDetails, TeamRelated, TeamView } from '../../teams/team-view.js';
import { membershipResource } from './memberships.serializer.js';
import { userResource } from './users.serializer.js';

/** One shape for list, show, create and update (go-tfe compares list items to create responses field by field). */
export function teamResource(view: TeamView, permissions: TeamPermissions): Resource {
  const { team } = view;
  const userIds = view.members.map((member) => member.userId);
  // HCP counts a tokened team's service account among its users (users-count) but does not list it: the tfe
  // provider's tfe_team_members would otherwise try to remove `api-team_…` and never converge (issue 37).
  const usersCount = userIds.length + (view.serviceAccountUserId ? 1 : 0);
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      'sso-team-id': team.ssoTeamId,
      'users-count': usersCount,
      'non-service-users-count': view.members.length,
      visibility: team.visibility,
      'allow-member-token-management': team.allowMemberTokenManagement,
      permissions,
      'organization-access': team.access,
    },
    relationships: {
      organization: { data: { id: team.organizationName, type: 'organizations' } },
      users: { data: userIds.map((id) => ({ id, type: 'users' })) },
      // Invited memberships too (HCP does; the tfe provider's tfe_team_organization_members converges on it),
      // while users and the counts hold only active members.
      'organization-memberships': {
        data: [...view.members.map((member) => member.membershipId), ...view.invitedMembershipIds].map((id) => ({ id, type: 'organization-memberships' })),
      },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}

/** `included` of a team document: users (by username), then organization memberships. */
export function teamIncluded(related: TeamRelated): Resource[] {
  return [
    ...related.users.map((user) => userResource(user, { showEmail: related.emailsVisible })),
    ...related.memberships.map((view) => membershipResource(view)),
  ];
}

export function teamDetailsResource(team: TeamDetails): Resource {
  return teamResource(team.view, team.permissions);
}
