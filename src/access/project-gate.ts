import type { Principal } from '../core/principal.js';
import type { ProjectsTable } from '../db/schema.js';
import type { OrganizationContext, OrganizationGate } from './organization-gate.js';
import type { OrganizationStanding } from './organization-standing.js';
import { unionProjectGrants, type ProjectGrant } from './project-access.js';
import { requireAccess } from './require-access.js';

export interface ProjectContext {
  project: ProjectsTable;
  context: OrganizationContext;
}

/** How the gate finds a project; the projects domain's repository is one (wired in services.ts). */
export interface ProjectFinder {
  findById(id: string): Promise<ProjectsTable | undefined>;
}

/** How the gate reads the caller's teams' access to projects (project-grants.repository.ts). */
export interface ProjectGrantReader {
  grantsOn(projectId: string, teamIds: ReadonlySet<string>): Promise<ProjectGrant[]>;
  grantsIn(organizationName: string, teamIds: ReadonlySet<string>): Promise<Map<string, ProjectGrant[]>>;
}

/** The standing with the caller's access to one project attached (pure). */
export function inProject(standing: OrganizationStanding, projectId: string, grants: readonly ProjectGrant[]): OrganizationStanding {
  return { ...standing, project: { id: projectId, grant: unionProjectGrants(grants) } };
}

const grantsCanMatter = (standing: OrganizationStanding) => standing.isMember && !standing.isOwner && standing.teamIds.size > 0;

/**
 * The first step of every project-scoped request: the project exists, the caller's standing in its organization
 * and their teams' access to it are read once, and the access table lets the caller read it (404 otherwise).
 */
export class ProjectGate {
  constructor(
    private readonly projects: ProjectFinder,
    private readonly gate: OrganizationGate,
    private readonly grants: ProjectGrantReader,
  ) {}

  async enter(principal: Principal, projectId: string): Promise<ProjectContext> {
    const project = await this.projects.findById(projectId);
    const organization = project && (await this.gate.contextOf(principal, project.organization_name));
    const context = organization && (await this.attach(organization, project.id));
    requireAccess(context?.standing, 'project', 'read', {});
    return { project: project!, context: context! };
  }

  /** The context with the caller's access to `projectId` attached: one statement, and none when it cannot matter. */
  async attach(context: OrganizationContext, projectId: string): Promise<OrganizationContext> {
    const { standing } = context;
    const grants = grantsCanMatter(standing) && standing.principal.kind !== 'agent' ? await this.grants.grantsOn(projectId, standing.teamIds) : [];
    return { ...context, standing: inProject(standing, projectId, grants) };
  }

  /** For a list of an organization's projects, with one statement: the projects the caller's teams have access to, and each one's standing. */
  async standingsIn(context: OrganizationContext): Promise<{ grantedIds: string[]; standingOf: (projectId: string) => OrganizationStanding }> {
    const { standing } = context;
    const byProject = grantsCanMatter(standing) ? await this.grants.grantsIn(context.organization.name, standing.teamIds) : new Map<string, ProjectGrant[]>();
    return { grantedIds: [...byProject.keys()], standingOf: (projectId) => inProject(standing, projectId, byProject.get(projectId) ?? []) };
  }
}
