import type { OrganizationStanding } from './organization-standing.js';
import { projectKeyAtLeast, type EffectiveProjectAccess } from './project-access.js';
import { canManageWorkspaces } from './workspace-permissions.js';

/**
 * Who may do what to projects. Two sources, the stronger wins (HCP: "whichever access level is higher"): the
 * organization's rights (owners; `manage-projects` manages every project; `read-projects` reads every project)
 * and the caller's teams' access to the one project asked about (`standing.project`, project-gate.ts).
 */

function grantOf(standing: OrganizationStanding): EffectiveProjectAccess | undefined {
  return standing.isMember ? standing.project?.grant : undefined;
}

/** HCP's "Manage all projects": create projects, and everything on every one of them (their teams' access too). */
export function canManageProjects(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-projects']);
}

/** HCP's "Read all projects". */
export function canReadAllProjects(standing: OrganizationStanding): boolean {
  return canManageProjects(standing) || (standing.isMember && standing.access['read-projects']);
}

/** The project of this request: a read right, or any team access to it; anyone else gets 404. */
export function canReadProject(standing: OrganizationStanding): boolean {
  return canReadAllProjects(standing) || grantOf(standing) !== undefined;
}

/** Name, description and settings: `settings: update` or more. */
export function canUpdateProject(standing: OrganizationStanding): boolean {
  const grant = grantOf(standing);
  return canManageProjects(standing) || (grant !== undefined && projectKeyAtLeast(grant.project, 'settings', 'update'));
}

/** Deleting it: `settings: delete` (HCP's project admins). */
export function canDeleteProject(standing: OrganizationStanding): boolean {
  const grant = grantOf(standing);
  return canManageProjects(standing) || (grant !== undefined && projectKeyAtLeast(grant.project, 'settings', 'delete'));
}

/** Granting teams access to it: `teams: manage`. */
export function canManageProjectTeamAccess(standing: OrganizationStanding): boolean {
  const grant = grantOf(standing);
  return canManageProjects(standing) || (grant !== undefined && grant.project.teams === 'manage');
}

/** Creating a workspace in it: `manage-workspaces`, or the project's `create` (its `maintain` and `admin` teams). */
export function canCreateWorkspaceIn(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing) || grantOf(standing)?.create === true;
}

/** Moving a workspace into or out of it: `manage-workspaces`, or the project's `move` (its `admin` teams). */
export function canMoveWorkspacesOf(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing) || grantOf(standing)?.move === true;
}
