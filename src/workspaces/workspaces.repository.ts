import type { Kysely } from 'kysely';
import { compiledOnce } from '../db/compiled-query.js';
import { containsText } from '../db/like.js';
import type { Database, WorkspacesTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';

export type WorkspaceRow = WorkspacesTable;

const COLUMNS = [
  'workspaces.id', 'workspaces.organization_name', 'workspaces.name', 'workspaces.name_lower', 'workspaces.description',
  'workspaces.auto_apply', 'workspaces.working_directory', 'workspaces.execution_mode', 'workspaces.created_at', 'workspaces.updated_at',
  'workspaces.allow_destroy_plan', 'workspaces.assessments_enabled', 'workspaces.auto_apply_run_trigger', 'workspaces.file_triggers_enabled',
  'workspaces.global_remote_state', 'workspaces.queue_all_runs', 'workspaces.speculative_enabled', 'workspaces.structured_run_output_enabled',
  'workspaces.trigger_prefixes', 'workspaces.trigger_patterns', 'workspaces.tag_names', 'workspaces.source_name', 'workspaces.source_url',
  'workspaces.terraform_version', 'workspaces.current_configuration_version_id', 'workspaces.required_approvals', 'workspaces.prevent_self_approval',
] as const;

export class WorkspacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Read by every request that enters a workspace (workspace-gate.ts): compiled once (db/compiled-query.ts). */
  private readonly byId = compiledOnce((p: { id: string }) => this.db.selectFrom('workspaces').select(COLUMNS).where('id', '=', p.id));

  async insert(row: WorkspaceRow): Promise<void> {
    await this.db.insertInto('workspaces').values(row).execute();
  }

  async findById(id: string, executor: Executor = this.db): Promise<WorkspaceRow | undefined> {
    return (await this.byId(executor, { id })).rows[0];
  }

  /** Changes the given settings; answers the row as written, or undefined when the workspace is gone. */
  async update(id: string, changes: Partial<Omit<WorkspaceRow, 'id' | 'organization_name' | 'created_at'>>): Promise<WorkspaceRow | undefined> {
    await this.db.updateTable('workspaces').set(changes).where('id', '=', id).execute();
    return this.findById(id);
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

  async list(filter: { organizationName: string; search?: string }, offset: number, limit: number): Promise<{ rows: WorkspaceRow[]; total: number }> {
    let query = this.db.selectFrom('workspaces').where('workspaces.organization_name', '=', filter.organizationName);
    if (filter.search) query = query.where((eb) => containsText(eb.ref('workspaces.name_lower'), filter.search!.toLowerCase()));
    const rows = await query.select(COLUMNS).orderBy('workspaces.name_lower').orderBy('workspaces.id').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** Runs, plans, applies, stages, results, configuration versions and attachments go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<void> {
    // Cascades through runs, stages and results that jobs may be locking: see retryOnDeadlock.
    await retryOnDeadlock(() => this.db.deleteFrom('workspaces').where('id', '=', id).execute());
  }
}
