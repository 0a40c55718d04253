import type { Kysely } from 'kysely';
import { compiledOnce } from '../db/compiled-query.js';
import { sql, type SqlBool } from 'kysely';
import { containsText, escapeLike } from '../db/like.js';
import type { Database, WorkspacesTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';

export type WorkspaceRow = WorkspacesTable;

export const COLUMNS = [
  'workspaces.id', 'workspaces.organization_name', 'workspaces.name', 'workspaces.name_lower', 'workspaces.description',
  'workspaces.auto_apply', 'workspaces.working_directory', 'workspaces.execution_mode', 'workspaces.created_at', 'workspaces.updated_at',
  'workspaces.allow_destroy_plan', 'workspaces.assessments_enabled', 'workspaces.auto_apply_run_trigger', 'workspaces.file_triggers_enabled',
  'workspaces.global_remote_state', 'workspaces.queue_all_runs', 'workspaces.speculative_enabled', 'workspaces.structured_run_output_enabled',
  'workspaces.trigger_prefixes', 'workspaces.trigger_patterns', 'workspaces.tag_names', 'workspaces.source_name', 'workspaces.source_url',
  'workspaces.terraform_version', 'workspaces.current_configuration_version_id', 'workspaces.required_approvals', 'workspaces.current_run_id',
  'workspaces.auto_destroy_at', 'workspaces.execution_mode_overwritten', 'workspaces.locked',
  'workspaces.locked_by_kind', 'workspaces.locked_by_id',
  'workspaces.agent_pool_id',
  'workspaces.prevent_self_approval',
  // Its project: null only for one an older node created during a rolling upgrade, which is in the default project.
  sql<string | null>`coalesce(workspaces.project_id, (select p.id from projects p where p.default_of = workspaces.organization_name))`.as('project_id'),
] as const;

export class WorkspacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Read by every request that enters a workspace (workspace-gate.ts): compiled once (db/compiled-query.ts). */
  private readonly byId = compiledOnce((p: { id: string }) => this.db.selectFrom('workspaces').select(COLUMNS).where('id', '=', p.id));

  async insert(row: WorkspaceRow, executor: Executor = this.db): Promise<void> {
    await executor.insertInto('workspaces').values(row).execute();
  }

  async findById(id: string, executor: Executor = this.db): Promise<WorkspaceRow | undefined> {
    return (await this.byId(executor, { id })).rows[0];
  }

  /** Changes the given settings; answers the row as written, or undefined when the workspace is gone. */
  async update(id: string, changes: Partial<Omit<WorkspaceRow, 'id' | 'organization_name' | 'created_at'>>, executor: Executor = this.db): Promise<WorkspaceRow | undefined> {
    await executor.updateTable('workspaces').set(changes).where('id', '=', id).execute();
    return this.findById(id, executor);
  }

  /** A new organization default: the workspaces that follow it (setting-overwrites false) take it. */
  async followDefaultExecutionMode(executor: Executor, organizationName: string, mode: string): Promise<void> {
    await executor.updateTable('workspaces').set({ execution_mode: mode }).where('organization_name', '=', organizationName).where('execution_mode_overwritten', '=', 0).execute();
  }

  /** The organization's workspaces of these ids, by name (unknown ids are left out). */
  async findManyInOrganization(organizationName: string, ids: readonly string[]): Promise<WorkspaceRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('workspaces').select(COLUMNS).where('organization_name', '=', organizationName).where('id', 'in', [...ids]).orderBy('name_lower').execute();
  }

  /** Names are unique ignoring case, so a lookup by name is too. */
  findByName(organizationName: string, name: string): Promise<WorkspaceRow | undefined> {
    return this.db
      .selectFrom('workspaces')
      .select(COLUMNS)
      .where('organization_name', '=', organizationName)
      .where('name_lower', '=', name.toLowerCase())
      .executeTakeFirst();
  }

  /** HCP's list: its searches and filters combined (all must hold), sorted by name or by the current run's creation. */
  async list(filter: WorkspaceListFilter, offset: number, limit: number): Promise<{ rows: WorkspaceRow[]; total: number }> {
    let query = this.db.selectFrom('workspaces').where('workspaces.organization_name', '=', filter.organizationName);
    if (filter.ids) {
      if (filter.ids.length === 0) return { rows: [], total: 0 };
      query = query.where('workspaces.id', 'in', [...filter.ids]);
    }
    if (filter.projectId) {
      query = query.where(sql<SqlBool>`coalesce(workspaces.project_id, (select p.id from projects p where p.default_of = workspaces.organization_name)) = ${filter.projectId}`);
    }
    if (filter.search) query = query.where((eb) => containsText(eb.ref('workspaces.name_lower'), filter.search!.toLowerCase()));
    if (filter.wildcardName) query = query.where(wildcardMatch(filter.wildcardName.toLowerCase()));
    for (const tag of filter.tags ?? []) query = query.where(hasTag(tag, true));
    for (const tag of filter.excludeTags ?? []) query = query.where(hasTag(tag, false));
    if (filter.currentRunStatuses) query = query.where(sql<SqlBool>`(${CURRENT_RUN_STATUS}) in (${sql.join(filter.currentRunStatuses)})`);
    let ordered = query.select(COLUMNS);
    const sort = filter.sort ?? { by: 'name', descending: false };
    if (sort.by === 'current-run.created-at') {
      // Workspaces without a current run last, as HCP lists them.
      ordered = ordered.orderBy(sql`(${CURRENT_RUN_CREATED_AT}) is null`).orderBy(sql`(${CURRENT_RUN_CREATED_AT})`, sort.descending ? 'desc' : 'asc');
    }
    ordered = ordered.orderBy('workspaces.name_lower', sort.by === 'name' && sort.descending ? 'desc' : 'asc').orderBy('workspaces.id');
    const rows = await ordered.limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** How many runs each workspace has had (HCP's `workspace-kpis-runs-count`). */
  async runsCounts(workspaceIds: string[]): Promise<Map<string, number>> {
    if (workspaceIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('runs')
      .select(['workspace_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('workspace_id', 'in', workspaceIds)
      .groupBy('workspace_id')
      .execute();
    return new Map(rows.map((row) => [row.workspace_id, Number(row.n)]));
  }

  /** A safe delete: only while the workspace is unlocked, in one statement (no lock can come between). True when deleted. */
  async deleteUnlocked(id: string): Promise<boolean> {
    const result = await retryOnDeadlock(() => this.db.deleteFrom('workspaces').where('id', '=', id).where('locked', '=', 0).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }

  /** Runs, plans, applies, stages, results, configuration versions and attachments go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<void> {
    // Cascades through runs, stages and results that jobs may be locking: see retryOnDeadlock.
    await retryOnDeadlock(() => this.db.deleteFrom('workspaces').where('id', '=', id).execute());
  }
}

export interface WorkspaceListFilter {
  organizationName: string;
  /** search[name]: part of the name. */
  search?: string;
  /** search[wildcard-name]: `*` at the start, the end or both; without one, the whole name. */
  wildcardName?: string;
  /** search[tags] (all of them) and search[exclude-tags] (none of them). */
  tags?: string[];
  excludeTags?: string[];
  /** filter[current-run][status]: any of. */
  currentRunStatuses?: string[];
  sort?: { by: 'name' | 'current-run.created-at'; descending: boolean };
  /** filter[project][id]: the workspaces of one project. */
  projectId?: string;
  /** Only these (a caller who reads some workspaces through team access alone); none when empty. */
  ids?: readonly string[];
}

/** HCP's current run: the workspace's newest run that is not a speculative plan. */
const CURRENT_RUN = (column: 'status' | 'created_at') =>
  sql.raw(`select r.${column} from runs r where r.workspace_id = workspaces.id and r.plan_only = 0 order by r.created_at desc, r.id desc limit 1`);
const CURRENT_RUN_STATUS = CURRENT_RUN('status');
const CURRENT_RUN_CREATED_AT = CURRENT_RUN('created_at');

function wildcardMatch(pattern: string) {
  const leading = pattern.startsWith('*');
  const trailing = pattern.length > 1 && pattern.endsWith('*');
  const core = pattern.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  const like = `${leading ? '%' : ''}${escapeLike(core)}${trailing ? '%' : ''}`;
  return sql<SqlBool>`workspaces.name_lower like ${like} escape '\\'`;
}

function hasTag(name: string, present: boolean) {
  const exists = sql<SqlBool>`exists (select 1 from workspace_tags wt join organization_tags ot on ot.id = wt.tag_id where wt.workspace_id = workspaces.id and ot.name = ${name})`;
  return present ? exists : sql<SqlBool>`not ${exists}`;
}
