import type { Kysely } from 'kysely';
import type { Database, TeamWorkspacesTable } from '../db/schema.js';
import type { WorkspaceGrant } from '../access/workspace-access.js';

/** The columns a grant is stored in (migration 034), from a grant. */
export function grantColumns(grant: WorkspaceGrant) {
  return {
    access: grant.access,
    runs: grant.runs,
    variables: grant.variables,
    state_versions: grant['state-versions'],
    sentinel_mocks: grant['sentinel-mocks'],
    workspace_locking: grant['workspace-locking'] ? 1 : 0,
    run_tasks: grant['run-tasks'] ? 1 : 0,
    policy_overrides: grant['policy-overrides'] ? 1 : 0,
  } as const;
}

/** Team access to workspaces (table `team_workspaces`): written here; the workspace gate reads it (access/). */
export class TeamWorkspacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async findById(id: string): Promise<TeamWorkspacesTable | undefined> {
    return this.db.selectFrom('team_workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(row: TeamWorkspacesTable, trx: Kysely<Database> = this.db): Promise<void> {
    await trx.insertInto('team_workspaces').values(row).execute();
  }

  async update(id: string, grant: WorkspaceGrant, updatedAt: string, trx: Kysely<Database> = this.db): Promise<TeamWorkspacesTable | undefined> {
    await trx.updateTable('team_workspaces').set({ ...grantColumns(grant), updated_at: updatedAt }).where('id', '=', id).execute();
    return trx.selectFrom('team_workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether a row was deleted (false: someone else deleted it first). */
  async delete(id: string, trx: Kysely<Database> = this.db): Promise<boolean> {
    const result = await trx.deleteFrom('team_workspaces').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** All access to one workspace, oldest first. */
  async ofWorkspace(workspaceId: string): Promise<TeamWorkspacesTable[]> {
    return this.db.selectFrom('team_workspaces').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
  }

  /** All access of one team, oldest first. */
  async ofTeam(teamId: string): Promise<TeamWorkspacesTable[]> {
    return this.db.selectFrom('team_workspaces').selectAll().where('team_id', '=', teamId).orderBy('created_at').orderBy('id').execute();
  }
}
