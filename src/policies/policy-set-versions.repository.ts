import type { Kysely } from 'kysely';
import type { Database, PolicySetVersionsTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { newId } from '../core/ids.js';
import { lockOrganizationRow } from '../organizations/organization-row-lock.js';
import type { RegoVersion } from './opa-engine.js';
import type { PolicySetRow } from './policies.repository.js';
import type { DeclaredPolicy } from './policy-set-layout.js';

export type PolicySetVersionRow = PolicySetVersionsTable;

/** A declared policy with its checked Rego version (null for Sentinel: never run). */
export type CheckedPolicy = DeclaredPolicy & { regoVersion: RegoVersion | null };

/** SQL of policy set versions, and the replacement of a set's policies by a version's. */
export class PolicySetVersionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: PolicySetVersionRow): Promise<void> {
    await this.db.insertInto('policy_set_versions').values(row).execute();
  }

  async findById(id: string): Promise<PolicySetVersionRow | undefined> {
    return this.db.selectFrom('policy_set_versions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByUploadTokenHash(hash: string): Promise<PolicySetVersionRow | undefined> {
    return this.db.selectFrom('policy_set_versions').selectAll().where('upload_token_hash', '=', hash).executeTakeFirst();
  }

  /** Leaves `pending` for `status`, only if still pending (one upload wins), erasing the upload token; answers whether it did. */
  async settle(executor: Executor, id: string, status: 'ready' | 'errored', timestamps: string, error: string | null, now: string): Promise<boolean> {
    const result = await executor
      .updateTable('policy_set_versions')
      .set({ status, status_timestamps: timestamps, error, upload_token: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Makes `declared` the set's policies, in the caller's transaction, under the organization's row lock: a policy
   * of the same name already in the organization is updated when it is of the set's kind and in no other set,
   * others are created within `limit`; the set's other policies are unlinked (kept, in no set). Answers why it
   * cannot, or undefined.
   */
  async replacePolicies(trx: Executor, set: PolicySetRow, declared: readonly CheckedPolicy[], limit: number, now: string): Promise<string | undefined> {
    await lockOrganizationRow(trx, set.organization_name);
    const names = declared.map((policy) => policy.name);
    const existing = names.length === 0 ? [] : await trx.selectFrom('policies').select(['id', 'name', 'kind']).where('organization_name', '=', set.organization_name).where('name', 'in', names).execute();
    const byName = new Map(existing.map((row) => [row.name, row]));
    const otherKind = existing.find((row) => row.kind !== set.kind);
    if (otherKind) return `the organization's policy ${otherKind.name} is of kind ${otherKind.kind}; this ${set.kind} set cannot take it over`;
    if (existing.length > 0) {
      const elsewhere = await trx.selectFrom('policy_set_policies').innerJoin('policies', 'policies.id', 'policy_set_policies.policy_id')
        .select('policies.name').where('policy_set_policies.policy_id', 'in', existing.map((row) => row.id)).where('policy_set_policies.policy_set_id', '!=', set.id).executeTakeFirst();
      if (elsewhere) return `the organization's policy ${elsewhere.name} belongs to another policy set; rename it in the archive or remove it from that set`;
    }
    const created = declared.filter((policy) => !byName.has(policy.name));
    const { n } = await trx.selectFrom('policies').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_name', '=', set.organization_name).executeTakeFirstOrThrow();
    if (Number(n) + created.length > limit) return `the organization would have more than ${limit} policies (TEAMSTAGE_POLICIES_PER_ORGANIZATION)`;
    const ids: string[] = [];
    for (const policy of declared) {
      const fields = { description: policy.description, query: policy.query, enforcement_level: policy.level, rego: policy.text, rego_version: policy.regoVersion, updated_at: now };
      const found = byName.get(policy.name);
      if (found) {
        await trx.updateTable('policies').set(fields).where('id', '=', found.id).execute();
        ids.push(found.id);
      } else {
        const id = newId('pol');
        await trx.insertInto('policies').values({ id, organization_name: set.organization_name, name: policy.name, kind: set.kind, created_at: now, ...fields }).execute();
        ids.push(id);
      }
    }
    let unlink = trx.deleteFrom('policy_set_policies').where('policy_set_id', '=', set.id);
    if (ids.length > 0) unlink = unlink.where('policy_id', 'not in', ids);
    await unlink.execute();
    if (ids.length > 0) {
      await trx.insertInto('policy_set_policies').values(ids.map((policy_id) => ({ policy_set_id: set.id, policy_id }))).onConflict((oc) => oc.doNothing()).execute();
    }
    await trx.updateTable('policy_sets').set({ updated_at: now }).where('id', '=', set.id).execute();
    return undefined;
  }
}
