import type { Kysely } from 'kysely';
import type { OrganizationContext } from '../access/organization-gate.js';
import type { ProjectGate } from '../access/project-gate.js';
import { allows, requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { Database } from '../db/schema.js';
import { ensureDefaultProject } from '../projects/default-project.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';

/** What a workspace needs of projects: the projects, and the gate that attaches the caller's access to one. */
export interface WorkspaceProjects {
  db: Kysely<Database>;
  projects: ProjectsRepository;
  gate: ProjectGate;
}

/** The project named for a workspace: one of the organization's that the caller reads, else 404 (as a project the caller cannot see). */
async function namedProject(deps: WorkspaceProjects, found: OrganizationContext, projectId: string): Promise<OrganizationContext> {
  const project = await deps.projects.findById(projectId);
  if (!project || project.organization_name !== found.organization.name) throw Errors.projectNotFound();
  const context = await deps.gate.attach(found, project.id);
  requireAccess(context.standing, 'project', 'read', {});
  return context;
}

/**
 * The project a new workspace goes in, once the caller may create it there: a named project needs the project's
 * `create-workspace` (its `create` key, or `manage-workspaces`); without one it lands in the default project,
 * which the organization's `create-workspace` allows (403 as before) or the default project's own `create`.
 */
export async function projectForNewWorkspace(deps: WorkspaceProjects, found: OrganizationContext, projectId: string | undefined): Promise<string> {
  if (projectId !== undefined) {
    const context = await namedProject(deps, found, projectId);
    requireAccess(context.standing, 'project', 'create-workspace', {});
    return projectId;
  }
  const project = await ensureDefaultProject(deps.db, found.organization.name, nowIso());
  const context = await deps.gate.attach(found, project.id);
  if (!allows(context.standing, 'project', 'create-workspace', {})) requireAccess(found.standing, 'organization', 'create-workspace', { name: found.organization.name });
  return project.id;
}

/**
 * Moving a workspace between projects (HCP: a PATCH with relationships.project): the caller administers the
 * workspace (checked before) and may move workspaces out of its project and into the other one (`move`, or
 * `manage-workspaces`).
 */
export async function requireMove(deps: WorkspaceProjects, found: OrganizationContext, fromProjectId: string, toProjectId: string): Promise<void> {
  const destination = await namedProject(deps, found, toProjectId);
  const source = await deps.gate.attach(found, fromProjectId);
  requireAccess(source.standing, 'project', 'move-workspace', {});
  requireAccess(destination.standing, 'project', 'move-workspace', {});
}
