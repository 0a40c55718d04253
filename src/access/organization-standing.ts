import type { Principal } from '../core/principal.js';
import { fullAccess, noAccess, unionAccess, type OrganizationAccess } from './organization-access.js';
import type { EffectiveWorkspaceAccess } from './workspace-access.js';
import type { EffectiveProjectAccess } from './project-access.js';

/**
 * The caller's standing in one workspace, beside their standing in its organization: what their teams'
 * access to it grants (undefined: none). Attached by workspace-gate.ts, the one place that reads it.
 */
export interface WorkspaceLayer {
  id: string;
  grant: EffectiveWorkspaceAccess | undefined;
}

/** The caller's standing in one project: what their teams' access to it grants (undefined: none). Attached by project-gate.ts. */
export interface ProjectLayer {
  id: string;
  grant: EffectiveProjectAccess | undefined;
}

/**
 * What a principal is inside one organization (owner, member of which teams, which rights). Built once
 * per request and organization, then every rule asks it instead of the database.
 */
export interface OrganizationStanding {
  organizationName: string;
  principal: Principal;
  /** Site admin, member of owners, the organization token or the owners team's token. */
  isOwner: boolean;
  /** May see the organization at all (any active member, any token of it, site admin). */
  isMember: boolean;
  /** The union of the organization-access of the caller's teams (all true for owners). */
  access: OrganizationAccess;
  /** Teams the caller belongs to: their secret teams are visible to them. */
  teamIds: ReadonlySet<string>;
  /** The organization token is not a person, nor any token it minted: they cannot create runs or override stages. */
  actsAsPerson: boolean;
  /**
   * Whether the organization's edition has teams. Without them, teams other than owners grant
   * nothing and only owners see them.
   */
  teamsEntitled: boolean;
  /**
   * For a request about one workspace (its runs, stages, plans…): the caller's team access to it. Without it
   * only organization-level rights count (workspace-permissions.ts), so a missing layer refuses, never grants.
   */
  workspace?: WorkspaceLayer;
  /** For a request about one project (the project, its team access, a workspace created in or moved to it). */
  project?: ProjectLayer;
}

export interface CallerTeam {
  id: string;
  isOwners: boolean;
  access: OrganizationAccess;
}

/** Pure: the standing from the caller's teams in this organization. */
export function standingFromTeams(
  principal: Principal,
  organizationName: string,
  facts: { activeMember: boolean; teams: CallerTeam[]; teamsEntitled?: boolean },
): OrganizationStanding {
  const actsAsPerson = principal.kind === 'organization' ? false : principal.kind === 'team' ? principal.actsAsPerson : true;
  const teamsEntitled = facts.teamsEntitled ?? true;
  const base = { organizationName, principal, actsAsPerson, teamsEntitled };
  if (principal.kind === 'site-admin' || principal.kind === 'organization') {
    const ownsIt = principal.kind === 'site-admin' || principal.organizationName === organizationName;
    return { ...base, isOwner: ownsIt, isMember: ownsIt, access: ownsIt ? fullAccess() : noAccess(), teamIds: new Set() };
  }
  // An agent token belongs to its pool's organization with no right of its own: its workspaces' access comes
  // from the workspace gate (the workspaces that name its pool), and only on the pipeline's routes.
  if (principal.kind === 'agent') {
    return { ...base, isOwner: false, isMember: facts.activeMember, access: noAccess(), teamIds: new Set() };
  }
  // An edition without teams leaves only the owners team granting anything; an upgrade restores the others.
  const teams = teamsEntitled ? facts.teams : facts.teams.filter((team) => team.isOwners);
  const isOwner = teams.some((team) => team.isOwners);
  return {
    ...base,
    isOwner,
    // A team token belongs to the organization through its team alone.
    isMember: principal.kind === 'team' ? facts.activeMember && teams.length > 0 : facts.activeMember,
    access: isOwner ? fullAccess() : unionAccess(teams.map((team) => team.access)),
    teamIds: new Set(teams.map((team) => team.id)),
  };
}

/** A caller who may not see the organization at all. */
export function outsider(principal: Principal, organizationName: string): OrganizationStanding {
  return standingFromTeams(principal, organizationName, { activeMember: false, teams: [] });
}
