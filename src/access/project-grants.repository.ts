import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { projectGrantOfRow, type ProjectGrant } from './project-access.js';

/**
 * Reads the caller's teams' access to projects (table `team_projects`, written by src/teamaccess/): what the
 * project gate attaches to a standing, and (through workspace-grants.repository.ts) what the project's
 * workspaces inherit. A workspace with no project (one an older node made) is in its organization's default project.
 */
export class ProjectGrantsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The grants on one project of the teams among `teamIds` (one statement). */
  async grantsOn(projectId: string, teamIds: ReadonlySet<string>): Promise<ProjectGrant[]> {
    if (teamIds.size === 0) return [];
    const rows = await this.db
      .selectFrom('team_projects')
      .select(['access', 'project_access', 'workspace_access'])
      .where('project_id', '=', projectId)
      .where('team_id', 'in', [...teamIds])
      .execute();
    return rows.map(projectGrantOfRow);
  }

  /** The grants of the teams among `teamIds` on every project of an organization, by project (one statement). */
  async grantsIn(organizationName: string, teamIds: ReadonlySet<string>): Promise<Map<string, ProjectGrant[]>> {
    const byProject = new Map<string, ProjectGrant[]>();
    if (teamIds.size === 0) return byProject;
    const rows = await this.db
      .selectFrom('team_projects')
      .select(['project_id', 'access', 'project_access', 'workspace_access'])
      .where('organization_name', '=', organizationName)
      .where('team_id', 'in', [...teamIds])
      .execute();
    for (const row of rows) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), projectGrantOfRow(row)]);
    return byProject;
  }

  /** The grants of the teams among `teamIds` on the project of one workspace (one statement). */
  async grantsOnProjectOf(workspaceId: string, teamIds: ReadonlySet<string>): Promise<ProjectGrant[]> {
    if (teamIds.size === 0) return [];
    const rows = await this.db
      .selectFrom('team_projects')
      .innerJoin('workspaces', (join) => join.on(sql<boolean>`team_projects.project_id = ${projectOfWorkspace}`))
      .select(['team_projects.access', 'team_projects.project_access', 'team_projects.workspace_access'])
      .where('workspaces.id', '=', workspaceId)
      .where('team_projects.team_id', 'in', [...teamIds])
      .execute();
    return rows.map(projectGrantOfRow);
  }

  /** The grants of the teams among `teamIds` on the projects of an organization's workspaces, by workspace (one statement). */
  async grantsOnProjectsIn(organizationName: string, teamIds: ReadonlySet<string>): Promise<Map<string, ProjectGrant[]>> {
    const byWorkspace = new Map<string, ProjectGrant[]>();
    if (teamIds.size === 0) return byWorkspace;
    const rows = await this.db
      .selectFrom('team_projects')
      .innerJoin('workspaces', (join) => join.on(sql<boolean>`team_projects.project_id = ${projectOfWorkspace}`))
      .select(['workspaces.id as workspace_id', 'team_projects.access', 'team_projects.project_access', 'team_projects.workspace_access'])
      .where('team_projects.organization_name', '=', organizationName)
      .where('workspaces.organization_name', '=', organizationName)
      .where('team_projects.team_id', 'in', [...teamIds])
      .execute();
    for (const row of rows) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), projectGrantOfRow(row)]);
    return byWorkspace;
  }
}

/** A workspace's project: its own, or its organization's default one. */
const projectOfWorkspace = sql`coalesce(workspaces.project_id, (select p.id from projects p where p.default_of = workspaces.organization_name))`;
