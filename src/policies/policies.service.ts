import { requireAccess } from '../access/require-access.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { nowIso } from '../core/clock.js';
import { ApiError, Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { isUniqueViolation } from '../db/database.js';
import type { PolicyEngine, RegoVersion } from './opa-engine.js';
import { enforcementLevelOf, policyKindOf, policyNameProblem, type PolicyInput, type PolicyKind } from './policy-input.js';
import { provenVisible, provenWritable, type Visible, type Writable } from '../access/lookup-proofs.js';
import type { PoliciesRepository, PolicySetRelations, PolicySetRow, PolicySummary, SetVersions } from './policies.repository.js';

/** A thing found for the caller before its request body is read (404 first), with the caller's context. */
export interface Found<T> {
  row: T;
  context: OrganizationContext;
}

export interface PolicySetView {
  set: PolicySetRow;
  relations: PolicySetRelations;
  /** HCP's `newest-version` (the last created) and `current-version` (the last that became ready). */
  versions: SetVersions;
}

export interface PolicySetInput {
  name?: string;
  description?: string | null;
  kind?: string;
  overridable?: boolean;
  global?: boolean;
}

/** The limits of an organization's policies (config-policies.ts documents each). */
export interface PolicyLimits {
  /** TEAMSTAGE_POLICY_MAX_BYTES: the largest Rego text taken (a policy is source code, not data). */
  maxBytes: number;
  /** TEAMSTAGE_POLICIES_PER_ORGANIZATION. */
  policiesPerOrganization: number;
}

const ATTR = '/data/attributes';

/**
 * Policies and policy sets of an organization (HCP's OPA policy API). Any member reads them; owners and
 * `manage-policies` write them, when the edition has policies (access-table.ts). A server without an engine
 * takes no policies: it could not judge them (`noPolicyEngine`).
 */
export class PoliciesService {
  constructor(
    private readonly policies: PoliciesRepository,
    private readonly gate: OrganizationGate,
    private readonly engine: PolicyEngine,
    readonly limits: PolicyLimits,
  ) {}

  /** `context`: the organization lookup's proof (any member). */
  async listPolicies({ organization }: OrganizationContext, page: PageRequest, search?: string, kind?: string): Promise<Page<PolicySummary>> {
    const { rows, total } = await this.policies.policiesOf(organization.name, page.offset, page.size, search, kind === undefined ? undefined : policyKindOf(kind));
    return pageOf(page, rows, total);
  }

  async createPolicy(context: OrganizationContext, input: PolicyInput): Promise<PolicySummary> {
    this.requireWrite(context, 'policy');
    const name = input.name ?? '';
    const problem = policyNameProblem(name);
    if (problem) throw Errors.invalidName(`${ATTR}/name`, problem);
    const kind = policyKindOf(input.kind);
    // A Sentinel policy has no query (HCP's API takes none for it); it is stored, and errored at evaluation.
    if (kind === 'opa' && (!input.query || input.query.trim() === '')) throw Errors.policyQueryRequired();
    const level = enforcementLevelOf(input, true, kind)!;
    const now = nowIso();
    const row = {
      id: newId('pol'), organization_name: context.organization.name, name, description: input.description ?? null, kind, query: kind === 'opa' ? input.query! : '',
      enforcement_level: level, rego: null, rego_version: null, created_at: now, updated_at: now,
    };
    try {
      const inserted = await this.policies.insertPolicyWithin(row, this.limits.policiesPerOrganization);
      if (!inserted) throw Errors.policiesPerOrganizationReached(this.limits.policiesPerOrganization);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return { ...row, uploaded: false, policy_set_count: 0 };
  }

  /** The policy, for a caller who may see it (any member of its organization); else 404. */
  async visiblePolicy(principal: Principal, policyId: string): Promise<Visible<Found<PolicySummary>>> {
    const row = await this.policies.findPolicy(policyId);
    if (!row) throw Errors.policyNotFound();
    const context = await this.gate.enterFor(principal, row.organization_name, 'policy', 'read', { policiesEntitled: true });
    return provenVisible({ row, context });
  }

  /** visiblePolicy, and the caller may change it (403 otherwise); for routes that check before the body is read. */
  async writablePolicy(principal: Principal, policyId: string): Promise<Writable<Found<PolicySummary>>> {
    const found = await this.visiblePolicy(principal, policyId);
    this.requireWrite(found.context, 'policy');
    return provenWritable(found);
  }

  async updatePolicy(found: Visible<Found<PolicySummary>>, input: PolicyInput): Promise<PolicySummary> {
    this.requireWrite(found.context, 'policy');
    const kind = found.row.kind;
    if (kind === 'opa' && input.query !== undefined && input.query.trim() === '') throw Errors.policyQueryEmpty();
    const level = enforcementLevelOf(input, false, kind);
    const changes = {
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.query !== undefined && kind === 'opa' ? { query: input.query } : {}),
      ...(level !== undefined ? { enforcement_level: level } : {}),
      updated_at: nowIso(),
    };
    await this.policies.updatePolicy(found.row.id, changes);
    return { ...found.row, ...changes };
  }

  async deletePolicy(found: Visible<Found<PolicySummary>>): Promise<void> {
    this.requireWrite(found.context, 'policy');
    await this.policies.deletePolicy(found.row.id);
  }

  /**
   * The Rego text: compiled by OPA first (in its organization's share of the node's OPA processes), so a policy
   * that does not compile, calls a built-in policies may not use, or needs more than the memory bound to compile
   * is refused, each with its own error. A Sentinel policy's text is stored as it is (kept, downloadable, never
   * run: Teamstage has no Sentinel), within the same size limit.
   */
  async upload(found: Writable<Found<PolicySummary>>, rego: string): Promise<void> {
    this.requireWrite(found.context, 'policy');
    if (Buffer.byteLength(rego) > this.limits.maxBytes) throw Errors.policyTooLarge(this.limits.maxBytes);
    if (found.row.kind === 'sentinel') {
      await this.policies.updatePolicy(found.row.id, { rego, rego_version: null, updated_at: nowIso() });
      return;
    }
    const regoVersion = await this.checkedRegoVersion(rego, found.row.organization_name);
    await this.policies.updatePolicy(found.row.id, { rego, rego_version: regoVersion, updated_at: nowIso() });
  }

  /** The OPA check every Rego text passes (upload, policy set versions): its Rego version, or the named refusal. */
  async checkedRegoVersion(rego: string, organization: string): Promise<RegoVersion> {
    const checked = await this.engine.check(rego, organization);
    if (!checked.ok) {
      if (checked.problem === 'builtin') throw Errors.policyUsesUnavailableBuiltin(checked.builtin!);
      if (checked.problem === 'memory' || checked.problem === 'timeout') throw Errors.policyTooCostlyToCompile(checked.message);
      throw Errors.policyDoesNotCompile(checked.message);
    }
    return checked.regoVersion;
  }

  async download(found: Visible<Found<PolicySummary>>): Promise<string> {
    const rego = await this.policies.regoOf(found.row.id);
    if (rego === null || rego === undefined) throw Errors.policyNotUploaded();
    return rego;
  }

  // Policy sets.

  async listSets({ organization }: OrganizationContext, page: PageRequest, search?: string, kind?: string): Promise<Page<PolicySetView>> {
    const { rows, total } = await this.policies.setsOf(organization.name, page.offset, page.size, search, kind === undefined ? undefined : policyKindOf(kind));
    return pageOf(page, await this.viewsOf(rows), total);
  }

  async createSet(context: OrganizationContext, input: PolicySetInput, relations: PolicySetRelations): Promise<PolicySetView> {
    this.requireWrite(context, 'policy-set');
    const name = input.name ?? '';
    const problem = policyNameProblem(name);
    if (problem) throw Errors.invalidName(`${ATTR}/name`, problem);
    const kind = policyKindOf(input.kind);
    await this.checkRelations(context, relations, kind);
    const now = nowIso();
    const set: PolicySetRow = {
      id: newId('polset'), organization_name: context.organization.name, name, description: input.description ?? null, kind,
      overridable: input.overridable ? 1 : 0, global: input.global ? 1 : 0, created_at: now, updated_at: now,
    };
    try {
      await this.policies.insertSet(set, relations);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return (await this.viewsOf([set]))[0]!;
  }

  async visibleSet(principal: Principal, setId: string): Promise<Visible<Found<PolicySetRow>>> {
    const row = await this.policies.findSet(setId);
    if (!row) throw Errors.policySetNotFound();
    const context = await this.gate.enterFor(principal, row.organization_name, 'policy-set', 'read', { policiesEntitled: true });
    return provenVisible({ row, context });
  }

  /** The set by id, for work that already proved its right (a policy set version's upload URL). */
  async setById(setId: string): Promise<PolicySetRow | undefined> {
    return this.policies.findSet(setId);
  }

  async showSet({ row }: Visible<Found<PolicySetRow>>): Promise<PolicySetView> {
    return (await this.viewsOf([row]))[0]!;
  }

  async updateSet(found: Visible<Found<PolicySetRow>>, input: PolicySetInput): Promise<PolicySetView> {
    this.requireWrite(found.context, 'policy-set');
    if (input.name !== undefined) {
      const problem = policyNameProblem(input.name);
      if (problem) throw Errors.invalidName(`${ATTR}/name`, problem);
    }
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.overridable !== undefined ? { overridable: input.overridable ? 1 : 0 } : {}),
      ...(input.global !== undefined ? { global: input.global ? 1 : 0 } : {}),
      updated_at: nowIso(),
    };
    try {
      await this.policies.updateSet(found.row.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return (await this.viewsOf([{ ...found.row, ...changes }]))[0]!;
  }

  private async viewsOf(sets: PolicySetRow[]): Promise<PolicySetView[]> {
    const ids = sets.map((set) => set.id);
    const relations = await this.policies.relationsOf(ids);
    const versions = await this.policies.versionsOf(ids);
    return sets.map((set) => ({ set, relations: relations.get(set.id)!, versions: versions.get(set.id)! }));
  }

  async deleteSet(found: Visible<Found<PolicySetRow>>): Promise<void> {
    this.requireWrite(found.context, 'policy-set');
    await this.policies.deleteSet(found.row.id);
  }

  /** The relationship endpoints: add or remove policies, workspaces or workspace exclusions. */
  async changeRelations(found: Visible<Found<PolicySetRow>>, change: 'add' | 'remove', relations: Partial<PolicySetRelations>): Promise<void> {
    this.requireWrite(found.context, 'policy-set');
    if (change === 'add') {
      await this.checkRelations(found.context, relations, found.row.kind);
      await this.policies.linkNow(found.row.id, relations);
    } else {
      await this.policies.unlink(found.row.id, relations);
    }
  }

  /**
   * Every policy and workspace named must be the organization's (unknown ones are a 422 naming the first), and
   * every policy of the set's kind (HCP keeps OPA and Sentinel policies in sets of their own kind).
   */
  private async checkRelations(context: OrganizationContext, relations: Partial<PolicySetRelations>, kind: PolicyKind): Promise<void> {
    const org = context.organization.name;
    const policyIds = relations.policyIds ?? [];
    const known = await this.policies.policyKindsIn(org, policyIds);
    const unknownPolicy = policyIds.find((id) => !known.has(id));
    if (unknownPolicy) throw Errors.policySetPolicyNotFound(unknownPolicy);
    const otherKind = policyIds.find((id) => known.get(id) !== kind);
    if (otherKind) throw Errors.policySetPolicyOfOtherKind(otherKind, String(known.get(otherKind)), kind);
    const workspaceIds = [...(relations.workspaceIds ?? []), ...(relations.excludedWorkspaceIds ?? [])];
    const knownWorkspaces = await this.policies.workspaceIdsIn(org, workspaceIds);
    const unknownWorkspace = workspaceIds.find((id) => !knownWorkspaces.has(id));
    if (unknownWorkspace) throw Errors.policySetWorkspaceNotFound(unknownWorkspace);
  }

  /** For what belongs to a policy set (its parameters): the set's write verdict. */
  requireSetWrite(context: OrganizationContext): void {
    this.requireWrite(context, 'policy-set');
  }

  /** Whether the caller may write the set (the verdict of requireSetWrite, without the refusal). */
  maySetWrite(context: OrganizationContext): boolean {
    try {
      this.requireWrite(context, 'policy-set');
      return true;
    } catch (error) {
      if (error instanceof ApiError) return false;
      throw error;
    }
  }

  /** The write verdict (access-table.ts), then the engine: policies a server cannot evaluate are refused. */
  private requireWrite(context: OrganizationContext, thing: 'policy' | 'policy-set'): void {
    requireAccess(context.standing, thing, 'manage', { policiesEntitled: context.featureSet.policies });
    if (!this.engine.available) throw Errors.noPolicyEngine(this.engine.description);
  }
}
