import type { OrganizationStanding } from './organization-standing.js';

/** The facts about a team that decide who may see and change it. */
export interface TeamFacts {
  id: string;
  isOwners: boolean;
  visibility: 'secret' | 'organization';
  allowMemberTokenManagement: boolean;
}

/** Holders of these rights reach secret teams too when they also hold `access-secret-teams`. */
function reachesSecretTeams(standing: OrganizationStanding): boolean {
  const access = standing.access;
  return access['access-secret-teams'] && (access['manage-membership'] || access['manage-teams'] || access['manage-organization-access']);
}

/** Whether every secret team is visible, so a list needs no visibility filter. */
export function seesAllTeams(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && reachesSecretTeams(standing));
}

/** Members see visible teams and the secret teams they belong to; owners see all. */
export function canSeeTeam(standing: OrganizationStanding, team: TeamFacts): boolean {
  if (seesAllTeams(standing)) return true;
  // Without the teams entitlement, only owners see the teams it hides (so they can still delete them).
  if (!standing.isMember || (!standing.teamsEntitled && !team.isOwners)) return false;
  return team.visibility === 'organization' || standing.teamIds.has(team.id);
}

export function canCreateTeams(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-teams']);
}

/**
 * Whether the caller may set `organization-access` at all: owners and holders of
 * `manage-organization-access`. Without it, `manage-teams` could create a team with any rights and join it.
 */
export function canGrantOrganizationAccess(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-organization-access']);
}

export interface TeamPermissions {
  'can-update-membership': boolean;
  'can-destroy': boolean;
  'can-update-organization-access': boolean;
  'can-update-api-token': boolean;
  'can-update-visibility': boolean;
  'can-update-name': boolean;
  'can-update-sso-team-id': boolean;
  'can-update-member-token-management': boolean;
  'can-view-api-token': boolean;
}

/** Who may do what to one team, for one caller. Every route checks through this, and it is what `permissions` shows. */
export function teamPermissions(standing: OrganizationStanding, team: TeamFacts): TeamPermissions {
  const visible = canSeeTeam(standing, team);
  const owner = standing.isOwner;
  const access = standing.access;
  const manageTeams = visible && (owner || access['manage-teams']);
  const manageMembership = visible && (owner || access['manage-membership']);
  const manageAccess = visible && canGrantOrganizationAccess(standing);
  const isMemberOfTeam = standing.teamIds.has(team.id) && standing.principal.kind === 'user';
  // Joining the owners team, or holding its token, makes one an owner: only owners hand that out, or a
  // right like manage-membership or manage-teams would be a way to become owner.
  const ownersGuard = !team.isOwners || owner;
  const tokens = ownersGuard && (manageTeams || (visible && isMemberOfTeam && team.allowMemberTokenManagement));
  return {
    'can-update-membership': manageMembership && ownersGuard,
    'can-destroy': manageTeams && !team.isOwners,
    'can-update-organization-access': manageAccess && !team.isOwners,
    'can-update-api-token': tokens,
    'can-update-visibility': manageTeams && ownersGuard,
    'can-update-name': manageTeams && !team.isOwners,
    'can-update-sso-team-id': manageTeams && ownersGuard,
    'can-update-member-token-management': manageTeams && ownersGuard,
    'can-view-api-token': tokens,
  };
}

/**
 * What the caller could do to this team were it not the owners team. Where that allows what the owners
 * rule forbids, the caller sees the team and may act on others like it: the refusal is a 403 (or the
 * owners team's own 422), never a 404, which is kept for what the caller may not see.
 */
export function permissionsBesideOwnersRule(standing: OrganizationStanding, team: TeamFacts): TeamPermissions {
  return teamPermissions(standing, { ...team, isOwners: false });
}
