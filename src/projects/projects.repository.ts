import { sql, type Kysely, type Transaction } from 'kysely';
import { containsText } from '../db/like.js';
import type { Database, ProjectsTable } from '../db/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** HCP's list options: `filter[names]` (exact names, comma-separated) and `q` (part of the name). */
export interface ProjectListOptions {
  names?: string[];
  query?: string;
  /** Only these ids (a caller who may not read every project); undefined: all. */
  ids?: readonly string[];
}

/** Projects (table `projects`) and the project of each workspace. */
export class ProjectsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findById(id: string): Promise<ProjectsTable | undefined> {
    return this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  }

  defaultOf(organizationName: string, executor: Executor = this.db): Promise<ProjectsTable | undefined> {
    return executor.selectFrom('projects').selectAll().where('default_of', '=', organizationName).executeTakeFirst();
  }

  async list(organizationName: string, offset: number, limit: number, options: ProjectListOptions): Promise<{ rows: ProjectsTable[]; total: number }> {
    let query = this.db.selectFrom('projects').where('organization_name', '=', organizationName);
    if (options.names && options.names.length > 0) query = query.where('name', 'in', options.names);
    if (options.query) query = query.where((eb) => containsText(eb.ref('name_lower'), options.query!.toLowerCase()));
    if (options.ids) {
      if (options.ids.length === 0) return { rows: [], total: 0 };
      query = query.where('id', 'in', [...options.ids]);
    }
    const rows = await query.selectAll().orderBy('name_lower').orderBy('id').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  async insert(row: ProjectsTable, executor: Executor = this.db): Promise<void> {
    await executor.insertInto('projects').values(row).execute();
  }

  async update(id: string, changes: Partial<Omit<ProjectsTable, 'id' | 'organization_name' | 'default_of' | 'created_at'>>): Promise<ProjectsTable | undefined> {
    if (Object.keys(changes).length > 0) await this.db.updateTable('projects').set(changes).where('id', '=', id).execute();
    return this.findById(id);
  }

  /**
   * Deletes the project unless a workspace is in it (checked in the same statement, so a workspace created or
   * moved in meanwhile keeps it). Returns how many workspaces it holds: 0 when it was deleted.
   */
  async deleteIfEmpty(id: string): Promise<number> {
    const result = await this.db
      .deleteFrom('projects')
      .where('id', '=', id)
      .where('default_of', 'is', null)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('workspaces').select('workspaces.id').where('workspaces.project_id', '=', id))))
      .executeTakeFirst();
    if (Number(result.numDeletedRows) > 0) return 0;
    return (await this.countsOf([id])).workspaces.get(id) ?? 0;
  }

  /** How many workspaces and teams each project has (HCP's `workspace-count`, `team-count`). */
  async countsOf(ids: readonly string[]): Promise<{ workspaces: Map<string, number>; teams: Map<string, number> }> {
    const workspaces = new Map<string, number>();
    const teams = new Map<string, number>();
    if (ids.length === 0) return { workspaces, teams };
    const wsRows = await this.db.selectFrom('workspaces').select(['project_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('project_id', 'in', [...ids]).groupBy('project_id').execute();
    for (const row of wsRows) if (row.project_id) workspaces.set(row.project_id, Number(row.n));
    // Workspaces an older node created without a project are in their organization's default project.
    const orphanRows = await this.db.selectFrom('projects').innerJoin('workspaces', 'workspaces.organization_name', 'projects.default_of')
      .select(['projects.id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('projects.id', 'in', [...ids]).where('workspaces.project_id', 'is', null).groupBy('projects.id').execute();
    for (const row of orphanRows) workspaces.set(row.id, (workspaces.get(row.id) ?? 0) + Number(row.n));
    const teamRows = await this.db.selectFrom('team_projects').select(['project_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('project_id', 'in', [...ids]).groupBy('project_id').execute();
    for (const row of teamRows) teams.set(row.project_id, Number(row.n));
    return { workspaces, teams };
  }

  /** The project id each of these workspaces is in (its own, or its organization's default). */
  async projectsOfWorkspaces(workspaceIds: readonly string[]): Promise<Map<string, string>> {
    const byWorkspace = new Map<string, string>();
    if (workspaceIds.length === 0) return byWorkspace;
    const rows = await this.db.selectFrom('workspaces')
      .select(['workspaces.id', sql<string>`coalesce(workspaces.project_id, (select p.id from projects p where p.default_of = workspaces.organization_name))`.as('project_id')])
      .where('workspaces.id', 'in', [...workspaceIds]).execute();
    for (const row of rows) if (row.project_id) byWorkspace.set(row.id, row.project_id);
    return byWorkspace;
  }
}
