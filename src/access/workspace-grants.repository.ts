import type { Kysely } from 'kysely';
import { compiledOnce } from '../db/compiled-query.js';
import type { Database } from '../db/schema.js';
import { grantOfRow, type WorkspaceGrant } from './workspace-access.js';
import { workspaceGrantOf } from './project-access.js';
import { ProjectGrantsRepository } from './project-grants.repository.js';

/**
 * Reads the caller's teams' access to workspaces: their own (table `team_workspaces`) and what their access to
 * the workspace's project gives (table `team_projects`, project-access.ts's `workspaceGrantOf`), both written by
 * src/teamaccess/. The workspace gate attaches their union to a standing (the strongest of each key wins, as in
 * HCP), so this is the one place both kinds of team access meet. Read only here, so every rule sees the same rows.
 */
export class WorkspaceGrantsRepository {
  private readonly projects: ProjectGrantsRepository;

  constructor(private readonly db: Kysely<Database>) {
    this.projects = new ProjectGrantsRepository(db);
  }

  private readonly forWorkspace = compiledOnce((p: { workspaceId: string }) =>
    this.db
      .selectFrom('team_workspaces')
      .select(['team_id', 'access', 'runs', 'variables', 'state_versions', 'sentinel_mocks', 'workspace_locking', 'run_tasks', 'policy_overrides'])
      .where('workspace_id', '=', p.workspaceId),
  );

  /** The grants on one workspace of the teams among `teamIds` (two statements: its own, its project's). */
  async grantsOn(workspaceId: string, teamIds: ReadonlySet<string>): Promise<WorkspaceGrant[]> {
    const { rows } = await this.forWorkspace(this.db, { workspaceId });
    const own = rows.filter((row) => teamIds.has(row.team_id)).map(grantOfRow);
    const inherited = (await this.projects.grantsOnProjectOf(workspaceId, teamIds)).map(workspaceGrantOf);
    return [...own, ...inherited];
  }

  /** The agent pool a workspace names (an agent token of that pool drives its runs); undefined: none. */
  async agentPoolOf(workspaceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('workspaces').select('agent_pool_id').where('id', '=', workspaceId).executeTakeFirst();
    return row?.agent_pool_id ?? undefined;
  }

  /** The grants of the teams among `teamIds` on every workspace of an organization, by workspace (one statement). */
  async grantsIn(organizationName: string, teamIds: ReadonlySet<string>): Promise<Map<string, WorkspaceGrant[]>> {
    const byWorkspace = new Map<string, WorkspaceGrant[]>();
    if (teamIds.size === 0) return byWorkspace;
    const rows = await this.db
      .selectFrom('team_workspaces')
      .select(['workspace_id', 'access', 'runs', 'variables', 'state_versions', 'sentinel_mocks', 'workspace_locking', 'run_tasks', 'policy_overrides'])
      .where('organization_name', '=', organizationName)
      .where('team_id', 'in', [...teamIds])
      .execute();
    for (const row of rows) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), grantOfRow(row)]);
    for (const [workspaceId, grants] of await this.projects.grantsOnProjectsIn(organizationName, teamIds)) {
      byWorkspace.set(workspaceId, [...(byWorkspace.get(workspaceId) ?? []), ...grants.map(workspaceGrantOf)]);
    }
    return byWorkspace;
  }
}
