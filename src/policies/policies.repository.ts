import type { Kysely } from 'kysely';
import { FEATURE_SETS_WITH_POLICIES } from '../access/editions.js';
import type { Database, PoliciesTable, PolicySetsTable, PolicySetVersionsTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { PolicyKind } from '../shared/policy-kinds.js';
import { lockOrganizationRow } from '../organizations/organization-row-lock.js';

export type PolicyRow = PoliciesTable;
export type PolicySetRow = PolicySetsTable;

/** A policy without its Rego text (up to hundreds of KiB; read only for download and evaluation). */
export type PolicySummary = Omit<PolicyRow, 'rego'> & { uploaded: boolean; policy_set_count: number };

/** A policy set with the ids of what it relates to. */
export interface PolicySetRelations {
  policyIds: string[];
  workspaceIds: string[];
  excludedWorkspaceIds: string[];
}

/** A set's newest version and its current one (the newest that became ready), when it has them. */
export interface SetVersions {
  newest?: PolicySetVersionsTable;
  current?: PolicySetVersionsTable;
}

/** What an evaluation needs of one set that applies to a workspace: the set and its policies, texts included. */
export interface ApplicableSet {
  set: PolicySetRow;
  policies: PolicyRow[];
}

const SUMMARY_COLUMNS = [
  'policies.id', 'policies.organization_name', 'policies.name', 'policies.description', 'policies.kind', 'policies.query',
  'policies.enforcement_level', 'policies.rego_version', 'policies.created_at', 'policies.updated_at',
] as const;

/** SQL of policies and policy sets, organization-scoped; their links to each other and to workspaces. */
export class PoliciesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private summaries(executor: Executor = this.db) {
    return executor
      .selectFrom('policies')
      .select(SUMMARY_COLUMNS)
      .select((eb) => [
        eb.case().when('policies.rego', 'is', null).then(0).else(1).end().as('uploaded_flag'),
        eb.selectFrom('policy_set_policies').select((e) => e.fn.countAll<number>().as('n')).whereRef('policy_set_policies.policy_id', '=', 'policies.id').as('set_count'),
      ]);
  }

  private static summary(row: Omit<PolicyRow, 'rego'> & { uploaded_flag: unknown; set_count: unknown }): PolicySummary {
    const { uploaded_flag, set_count, ...rest } = row;
    return { ...rest, uploaded: Number(uploaded_flag) === 1, policy_set_count: Number(set_count ?? 0) };
  }

  async findPolicy(id: string): Promise<PolicySummary | undefined> {
    const row = await this.summaries().where('policies.id', '=', id).executeTakeFirst();
    return row && PoliciesRepository.summary(row);
  }

  /** `kind`: HCP's `filter[kind]` (opa or sentinel). */
  async policiesOf(organizationName: string, offset: number, limit: number, search?: string, kind?: PolicyKind): Promise<{ rows: PolicySummary[]; total: number }> {
    let query = this.summaries().where('policies.organization_name', '=', organizationName);
    let count = this.db.selectFrom('policies').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_name', '=', organizationName);
    if (kind) {
      query = query.where('policies.kind', '=', kind);
      count = count.where('kind', '=', kind);
    }
    if (search) {
      query = query.where('policies.name', 'like', `%${search.replace(/[%_\\]/g, '')}%`);
      count = count.where('name', 'like', `%${search.replace(/[%_\\]/g, '')}%`);
    }
    const rows = await query.orderBy('policies.name').limit(limit).offset(offset).execute();
    const total = await count.executeTakeFirstOrThrow();
    return { rows: rows.map(PoliciesRepository.summary), total: Number(total.n) };
  }

  async regoOf(id: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('policies').select('rego').where('id', '=', id).executeTakeFirst();
    return row ? row.rego : undefined;
  }

  /**
   * Inserts the policy unless its organization has `limit` already: counted after taking the organization's
   * row lock (a no-op update: a row lock on PostgreSQL, the write lock on SQLite), so concurrent creates take
   * turns and never pass the limit together. Answers false when the limit was reached.
   */
  async insertPolicyWithin(row: PolicyRow, limit: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await lockOrganizationRow(trx, row.organization_name);
      const { n } = await trx
        .selectFrom('policies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_name', '=', row.organization_name)
        .executeTakeFirstOrThrow();
      if (Number(n) >= limit) return false;
      await trx.insertInto('policies').values(row).execute();
      return true;
    });
  }

  async updatePolicy(id: string, changes: Partial<Pick<PolicyRow, 'description' | 'query' | 'enforcement_level' | 'rego' | 'rego_version' | 'updated_at'>>): Promise<void> {
    await this.db.updateTable('policies').set(changes).where('id', '=', id).execute();
  }

  async deletePolicy(id: string): Promise<void> {
    await this.db.deleteFrom('policies').where('id', '=', id).execute();
  }

  async findSet(id: string): Promise<PolicySetRow | undefined> {
    return this.db.selectFrom('policy_sets').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async setsOf(organizationName: string, offset: number, limit: number, search?: string, kind?: PolicyKind): Promise<{ rows: PolicySetRow[]; total: number }> {
    let query = this.db.selectFrom('policy_sets').selectAll().where('organization_name', '=', organizationName);
    let count = this.db.selectFrom('policy_sets').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_name', '=', organizationName);
    if (kind) {
      query = query.where('kind', '=', kind);
      count = count.where('kind', '=', kind);
    }
    if (search) {
      query = query.where('name', 'like', `%${search.replace(/[%_\\]/g, '')}%`);
      count = count.where('name', 'like', `%${search.replace(/[%_\\]/g, '')}%`);
    }
    const rows = await query.orderBy('name').limit(limit).offset(offset).execute();
    const total = await count.executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }

  async relationsOf(setIds: readonly string[]): Promise<Map<string, PolicySetRelations>> {
    const relations = new Map<string, PolicySetRelations>(setIds.map((id) => [id, { policyIds: [], workspaceIds: [], excludedWorkspaceIds: [] }]));
    if (setIds.length === 0) return relations;
    const policies = await this.db.selectFrom('policy_set_policies').selectAll().where('policy_set_id', 'in', [...setIds]).orderBy('policy_id').execute();
    const workspaces = await this.db.selectFrom('policy_set_workspaces').selectAll().where('policy_set_id', 'in', [...setIds]).orderBy('workspace_id').execute();
    for (const row of policies) relations.get(row.policy_set_id)!.policyIds.push(row.policy_id);
    for (const row of workspaces) {
      const rel = relations.get(row.policy_set_id)!;
      (row.excluded === 1 ? rel.excludedWorkspaceIds : rel.workspaceIds).push(row.workspace_id);
    }
    return relations;
  }

  /** Each set's newest and current versions (newest first by creation; the id breaks a tie). */
  async versionsOf(setIds: readonly string[]): Promise<Map<string, SetVersions>> {
    const versions = new Map<string, SetVersions>(setIds.map((id) => [id, {}]));
    if (setIds.length === 0) return versions;
    for (const status of [undefined, 'ready'] as const) {
      let query = this.db.selectFrom('policy_set_versions').selectAll().where('policy_set_id', 'in', [...setIds]);
      if (status) query = query.where('status', '=', status);
      // Only the first row per set is wanted; sets hold few versions a page of sets reads.
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
      for (const row of rows) {
        const entry = versions.get(row.policy_set_id)!;
        if (status === undefined) entry.newest ??= row;
        else entry.current ??= row;
      }
    }
    return versions;
  }

  /** The set with its policies and workspaces, in one transaction. */
  async insertSet(row: PolicySetRow, relations: PolicySetRelations): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('policy_sets').values(row).execute();
      await this.link(trx, row.id, relations);
    });
  }

  async updateSet(id: string, changes: Partial<Pick<PolicySetRow, 'name' | 'description' | 'overridable' | 'global' | 'updated_at'>>): Promise<void> {
    await this.db.updateTable('policy_sets').set(changes).where('id', '=', id).execute();
  }

  async deleteSet(id: string): Promise<void> {
    await this.db.deleteFrom('policy_sets').where('id', '=', id).execute();
  }

  /** Adds links that are not there yet (adding one twice is not an error, as in HCP). */
  async link(executor: Executor, setId: string, relations: Partial<PolicySetRelations>): Promise<void> {
    const policies = [...new Set(relations.policyIds ?? [])].map((policy_id) => ({ policy_set_id: setId, policy_id }));
    const workspaces = [
      ...[...new Set(relations.workspaceIds ?? [])].map((workspace_id) => ({ policy_set_id: setId, workspace_id, excluded: 0 })),
      ...[...new Set(relations.excludedWorkspaceIds ?? [])].map((workspace_id) => ({ policy_set_id: setId, workspace_id, excluded: 1 })),
    ];
    if (policies.length > 0) await executor.insertInto('policy_set_policies').values(policies).onConflict((oc) => oc.doNothing()).execute();
    if (workspaces.length > 0) await executor.insertInto('policy_set_workspaces').values(workspaces).onConflict((oc) => oc.doNothing()).execute();
  }

  async linkNow(setId: string, relations: Partial<PolicySetRelations>): Promise<void> {
    await this.link(this.db, setId, relations);
  }

  async unlink(setId: string, relations: Partial<PolicySetRelations>): Promise<void> {
    if (relations.policyIds?.length) {
      await this.db.deleteFrom('policy_set_policies').where('policy_set_id', '=', setId).where('policy_id', 'in', relations.policyIds).execute();
    }
    for (const [ids, excluded] of [[relations.workspaceIds, 0], [relations.excludedWorkspaceIds, 1]] as const) {
      if (ids?.length) {
        await this.db.deleteFrom('policy_set_workspaces').where('policy_set_id', '=', setId).where('excluded', '=', excluded).where('workspace_id', 'in', [...ids]).execute();
      }
    }
  }

  /** Which of these ids are policies of the organization (the others are unknown or not its). */
  /** The kind of each of these policies that is the organization's (the others are missing from the map). */
  async policyKindsIn(organizationName: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('policies').select(['id', 'kind']).where('organization_name', '=', organizationName).where('id', 'in', [...ids]).execute();
    return new Map(rows.map((row) => [row.id, row.kind]));
  }

  async workspaceIdsIn(organizationName: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('workspaces').select('id').where('organization_name', '=', organizationName).where('id', 'in', [...ids]).execute();
    return new Set(rows.map((row) => row.id));
  }

  /**
   * The ids of the policy sets that apply to the workspace now: global sets of its organization and the sets
   * that list it, minus those that exclude it; none when the organization's edition has no policies.
   */
  private applicableSetIds(executor: Executor, workspaceId: string) {
    return executor
      .selectFrom('policy_sets')
      .innerJoin('workspaces', 'workspaces.organization_name', 'policy_sets.organization_name')
      .innerJoin('organizations', 'organizations.name', 'workspaces.organization_name')
      .select('policy_sets.id')
      .where('workspaces.id', '=', workspaceId)
      .where('organizations.feature_set', 'in', [...FEATURE_SETS_WITH_POLICIES])
      .where((eb) =>
        eb.or([
          eb('policy_sets.global', '=', 1),
          eb.exists(
            eb.selectFrom('policy_set_workspaces as psw').select('psw.policy_set_id')
              .whereRef('psw.policy_set_id', '=', 'policy_sets.id').where('psw.workspace_id', '=', workspaceId).where('psw.excluded', '=', 0),
          ),
        ]),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('policy_set_workspaces as psx').select('psx.policy_set_id')
              .whereRef('psx.policy_set_id', '=', 'policy_sets.id').where('psx.workspace_id', '=', workspaceId).where('psx.excluded', '=', 1),
          ),
        ),
      );
  }

  /** Whether any policy set applies to the workspace (a new run then gets a post-plan stage). */
  async anySetApplies(executor: Executor, workspaceId: string): Promise<boolean> {
    const row = await this.applicableSetIds(executor, workspaceId).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** The sets that apply to the workspace now, by name, with their policies (Rego included), by name. */
  async applicableSets(workspaceId: string): Promise<ApplicableSet[]> {
    const ids = (await this.applicableSetIds(this.db, workspaceId).execute()).map((row) => row.id);
    if (ids.length === 0) return [];
    const sets = await this.db.selectFrom('policy_sets').selectAll().where('id', 'in', ids).orderBy('name').execute();
    const links = await this.db
      .selectFrom('policy_set_policies')
      .innerJoin('policies', 'policies.id', 'policy_set_policies.policy_id')
      .selectAll('policies')
      .select('policy_set_policies.policy_set_id')
      .where('policy_set_policies.policy_set_id', 'in', ids)
      .orderBy('policies.name')
      .execute();
    return sets.map((set) => ({ set, policies: links.filter((link) => link.policy_set_id === set.id).map(({ policy_set_id: _, ...policy }) => policy) }));
  }
}
