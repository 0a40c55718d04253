import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { containsText } from '../db/like.js';
import type { AgentPoolsTable, Database } from '../db/schema.js';

/** HCP's list options: `q` (part of the name), `filter[allowed_workspaces][name]` (the pools that workspace may use), `sort` (created-at, name, `-` for descending). */
export interface AgentPoolListOptions {
  query?: string;
  allowedWorkspaceName?: string;
  sort?: 'created-at' | '-created-at' | 'name' | '-name';
}

/** Agent pools and their allowed workspaces (tables `agent_pools`, `agent_pool_allowed_workspaces`). */
export class AgentPoolsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findById(id: string): Promise<AgentPoolsTable | undefined> {
    return this.db.selectFrom('agent_pools').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(organizationName: string, offset: number, limit: number, options: AgentPoolListOptions = {}): Promise<{ rows: AgentPoolsTable[]; total: number }> {
    let query = this.db.selectFrom('agent_pools').where('agent_pools.organization_name', '=', organizationName);
    if (options.query) query = query.where((eb) => containsText(sql`lower(${eb.ref('agent_pools.name')})`, options.query!.toLowerCase()));
    if (options.allowedWorkspaceName) {
      const name = options.allowedWorkspaceName.toLowerCase();
      // The pools that workspace may use: every organization-scoped pool, and those that allow it.
      query = query.where((eb) => eb.or([
        eb('agent_pools.organization_scoped', '=', 1),
        eb.exists(
          eb.selectFrom('agent_pool_allowed_workspaces')
            .innerJoin('workspaces', 'workspaces.id', 'agent_pool_allowed_workspaces.workspace_id')
            .select('agent_pool_allowed_workspaces.workspace_id')
            .whereRef('agent_pool_allowed_workspaces.agent_pool_id', '=', 'agent_pools.id')
            .where('workspaces.name_lower', '=', name),
        ),
      ]));
    }
    const sort = options.sort ?? 'created-at';
    const column = sort.endsWith('name') ? 'agent_pools.name' : 'agent_pools.created_at';
    const direction = sort.startsWith('-') ? 'desc' : 'asc';
    const rows = await query.selectAll('agent_pools').orderBy(column, direction).orderBy('agent_pools.id', direction).limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  async insert(row: AgentPoolsTable, allowedWorkspaceIds: readonly string[], trx: Kysely<Database>): Promise<void> {
    await trx.insertInto('agent_pools').values(row).execute();
    await this.setAllowed(row.id, allowedWorkspaceIds, trx);
  }

  async update(id: string, changes: Partial<Pick<AgentPoolsTable, 'name' | 'organization_scoped' | 'updated_at'>>, trx: Kysely<Database>): Promise<void> {
    if (Object.keys(changes).length > 0) await trx.updateTable('agent_pools').set(changes).where('id', '=', id).execute();
  }

  async setAllowed(id: string, workspaceIds: readonly string[], trx: Kysely<Database>): Promise<void> {
    await trx.deleteFrom('agent_pool_allowed_workspaces').where('agent_pool_id', '=', id).execute();
    const unique = [...new Set(workspaceIds)];
    if (unique.length > 0) await trx.insertInto('agent_pool_allowed_workspaces').values(unique.map((workspace_id) => ({ agent_pool_id: id, workspace_id }))).execute();
  }

  /**
   * Deletes the pool unless a workspace uses it, in one statement (so no workspace can be given the pool
   * between a check and the delete). Answers how many workspaces held it back (0: deleted).
   */
  async deleteUnused(id: string): Promise<number> {
    const deleted = await this.db
      .deleteFrom('agent_pools')
      .where('id', '=', id)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('workspaces').select('id').where('agent_pool_id', '=', id))))
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) > 0) return 0;
    const using = await this.db.selectFrom('workspaces').select((eb) => eb.fn.countAll<number>().as('count')).where('agent_pool_id', '=', id).executeTakeFirstOrThrow();
    return Number(using.count);
  }

  /** The allowed workspaces of each pool. */
  async allowedOf(ids: readonly string[]): Promise<Map<string, string[]>> {
    const byPool = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byPool;
    const rows = await this.db.selectFrom('agent_pool_allowed_workspaces').selectAll().where('agent_pool_id', 'in', [...ids]).orderBy('workspace_id').execute();
    for (const row of rows) byPool.get(row.agent_pool_id)?.push(row.workspace_id);
    return byPool;
  }

  /** The workspaces that name each pool (HCP's `workspaces` relationship of a pool). */
  async workspacesOf(ids: readonly string[]): Promise<Map<string, string[]>> {
    const byPool = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byPool;
    const rows = await this.db.selectFrom('workspaces').select(['id', 'agent_pool_id']).where('agent_pool_id', 'in', [...ids]).orderBy('id').execute();
    for (const row of rows) if (row.agent_pool_id) byPool.get(row.agent_pool_id)?.push(row.id);
    return byPool;
  }

  /** Which of `ids` are workspaces of the organization. */
  async workspacesIn(organizationName: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('workspaces').select('id').where('organization_name', '=', organizationName).where('id', 'in', [...ids]).execute();
    return new Set(rows.map((row) => row.id));
  }
}
