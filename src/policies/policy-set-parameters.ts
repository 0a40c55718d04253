import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { isUniqueViolation } from '../db/database.js';
import type { Database, PolicySetParametersTable } from '../db/schema.js';
import type { Visible } from '../access/lookup-proofs.js';
import type { Found, PoliciesService } from './policies.service.js';
import type { PolicySetRow } from './policies.repository.js';

export type PolicySetParameterRow = PolicySetParametersTable;

export interface PolicySetParameterInput {
  key?: string;
  value?: string;
  category?: string;
  sensitive?: boolean;
}


/**
 * HCP's policy set parameters (`/policy-sets/:id/parameters`, type `vars`, category `policy-set`): key/value
 * pairs Sentinel reads. Teamstage runs no Sentinel, so it only keeps them, for the clients and migrations that
 * write them. Readers of the set read them; writers of the set write them. A sensitive value is write-only, and
 * a parameter once sensitive stays so (HCP's rule).
 */
export class PolicySetParametersService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly policies: PoliciesService,
  ) {}

  async list({ row }: Visible<Found<PolicySetRow>>, page: PageRequest): Promise<Page<PolicySetParameterRow>> {
    const rows = await this.db.selectFrom('policy_set_parameters').selectAll().where('policy_set_id', '=', row.id).orderBy('key').execute();
    return pageOf(page, rows.slice(page.offset, page.offset + page.size), rows.length);
  }

  /** The parameter of this set, or 404 (a parameter of another set is not found here). */
  async find({ row }: Visible<Found<PolicySetRow>>, parameterId: string): Promise<PolicySetParameterRow> {
    const parameter = await this.db.selectFrom('policy_set_parameters').selectAll().where('id', '=', parameterId).where('policy_set_id', '=', row.id).executeTakeFirst();
    if (!parameter) throw Errors.policySetParameterNotFound();
    return parameter;
  }

  async create(found: Visible<Found<PolicySetRow>>, input: PolicySetParameterInput): Promise<PolicySetParameterRow> {
    this.policies.requireSetWrite(found.context);
    if (!input.key || input.key.trim() === '') throw Errors.policySetParameterKeyRequired();
    if (input.category !== 'policy-set') throw Errors.policySetParameterCategory();
    const now = nowIso();
    const row: PolicySetParameterRow = {
      id: newId('var'), policy_set_id: found.row.id, key: input.key, value: input.value ?? '', sensitive: input.sensitive ? 1 : 0, created_at: now, updated_at: now,
    };
    await this.write(() => this.db.insertInto('policy_set_parameters').values(row).execute());
    return row;
  }

  async update(found: Visible<Found<PolicySetRow>>, parameter: PolicySetParameterRow, input: PolicySetParameterInput): Promise<PolicySetParameterRow> {
    this.policies.requireSetWrite(found.context);
    if (input.key !== undefined && input.key.trim() === '') throw Errors.policySetParameterKeyEmpty();
    if (input.sensitive === false && parameter.sensitive === 1) throw Errors.policySetParameterStaysSensitive();
    const changes = {
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.value !== undefined ? { value: input.value } : {}),
      ...(input.sensitive ? { sensitive: 1 } : {}),
      updated_at: nowIso(),
    };
    await this.write(() => this.db.updateTable('policy_set_parameters').set(changes).where('id', '=', parameter.id).execute());
    return { ...parameter, ...changes };
  }

  async delete(found: Visible<Found<PolicySetRow>>, parameter: PolicySetParameterRow): Promise<void> {
    this.policies.requireSetWrite(found.context);
    await this.db.deleteFrom('policy_set_parameters').where('id', '=', parameter.id).execute();
  }

  private async write(statement: () => Promise<unknown>): Promise<void> {
    try {
      await statement();
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.policySetParameterKeyTaken();
      throw error;
    }
  }
}
