import type { TeamPermissions } from '../../access/team-permissions.js';
import type { Resource } from '../jsonapi.js';
import type { TeamDetails, TeamRelated, TeamView } from '../../teams/team-view.js';
import { membershipResource } from './memberships.serializer.js';
import { userResource } from './users.serializer.js';

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

/** `included` of a team document: users (by username), then organization memberships. */
export function teamIncluded(related: TeamRelated): Resource[] {
  return [
    ...related.users.map((user) => userResource(user, { showEmail: related.emailsVisible })),
    ...related.memberships.map((view) => membershipResource(view.membership, view.user, view.teamIds)),
  ];
}

export function teamDetailsResource(team: TeamDetails): Resource {
  return teamResource(team.view, team.permissions);
}
