import type { Kysely } from 'kysely';
import type { Database, TeamProjectsTable } from '../db/schema.js';
import type { ProjectGrant } from '../access/project-access.js';

/** The columns a project grant is stored in (migration 046). */
export function projectGrantColumns(grant: ProjectGrant) {
  return { access: grant.access, project_access: JSON.stringify(grant.project), workspace_access: JSON.stringify(grant.workspace) } as const;
}

/** Team access to projects (table `team_projects`): written here; the gates read it (access/project-grants.repository.ts). */
export class TeamProjectsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findById(id: string): Promise<TeamProjectsTable | undefined> {
    return this.db.selectFrom('team_projects').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(row: TeamProjectsTable, trx: Kysely<Database> = this.db): Promise<void> {
    await trx.insertInto('team_projects').values(row).execute();
  }

  async update(id: string, grant: ProjectGrant, updatedAt: string, trx: Kysely<Database> = this.db): Promise<TeamProjectsTable | undefined> {
    await trx.updateTable('team_projects').set({ ...projectGrantColumns(grant), updated_at: updatedAt }).where('id', '=', id).execute();
    return trx.selectFrom('team_projects').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async delete(id: string, trx: Kysely<Database> = this.db): Promise<boolean> {
    const result = await trx.deleteFrom('team_projects').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** All access to one project, oldest first. */
  ofProject(projectId: string): Promise<TeamProjectsTable[]> {
    return this.db.selectFrom('team_projects').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
  }

  /** All access of one team, oldest first. */
  ofTeam(teamId: string): Promise<TeamProjectsTable[]> {
    return this.db.selectFrom('team_projects').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
  }
}
