import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { Errors } from '../core/errors.js';
import { requireAccess, requirePersonalAccess } from '../access/require-access.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import type { StandingRepository } from '../access/standing.repository.js';
import { nameProblem } from '../core/team-name.js';
import { FEATURE_SETS, featureSetById, featureSetByName, featureSetOf, type FeatureSet } from '../access/editions.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { checkEmail } from '../identity/email.js';
import type { MembershipsRepository } from './memberships.repository.js';
import type { OrganizationCreatedHook } from './organization-created-hook.js';
import type { DefaultExecutionModeHook } from './default-execution-mode-hook.js';
import { mergedSettings, type OrganizationSettingsInput } from './organization-settings.js';
import { EXECUTION_MODES, isExecutionMode } from '../core/execution-mode.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.js';
import { provenVisible, provenWritable, type Writable } from '../access/lookup-proofs.js';

/** An organization as the caller sees it: the row and the caller's standing in it (for its permissions). */
export interface OrganizationView {
  organization: OrganizationRow;
  standing: OrganizationStanding;
}

/** A PATCH: only the attributes sent change. */
export interface OrganizationUpdateInput extends OrganizationSettingsInput {
  name?: string;
  email?: string;
  'default-execution-mode'?: string;
}

/** An organization with the feature set it is on (its entitlements, its subscription). */
export interface OrganizationEdition {
  organization: OrganizationRow;
  featureSet: FeatureSet;
}

/** Organizations, their editions and entitlements. */
export class OrganizationsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly organizations: OrganizationsRepository,
    private readonly gate: OrganizationGate,
    private readonly standings: StandingRepository,
    private readonly defaultFeatureSet: string,
    /** Who may create organizations, and how many one user may have created (0: no limit). */
    private readonly creation: { creators: 'anyone' | 'site-admin'; perUser: number },
    private readonly memberships: MembershipsRepository,
    /** What domains above this one add to a new organization (the owners team), in its transaction. */
    private readonly onCreated: readonly OrganizationCreatedHook[],
    /** The workspaces' side of a new default execution mode (they follow it unless they set their own). */
    private readonly onDefaultExecutionMode: DefaultExecutionModeHook = async () => {},
  ) {}

  /** Creates the organization with its owners team; a user creating it becomes its first owner. */
  async create(principal: Principal, input: OrganizationSettingsInput & { name: string; email: string; 'default-execution-mode'?: string }): Promise<OrganizationView> {
    requirePersonalAccess(principal, this.creation.creators === 'site-admin' ? 'create-organization-site-admin-only' : 'create-organization');
    const problem = nameProblem(input.name);
    if (problem) throw Errors.invalidName('/data/attributes/name', problem);
    checkEmail(input.email, '/data/attributes/email');
    const mode = input['default-execution-mode'] ?? 'remote';
    if (!isExecutionMode(mode)) throw Errors.invalidExecutionMode(EXECUTION_MODES, '/data/attributes/default-execution-mode');
    const now = nowIso();
    const featureSet = featureSetByName(this.defaultFeatureSet)!;
    try {
      await this.db.transaction().execute(async (trx) => {
        const creator = principal.kind === 'user' ? principal.userId : null;
        // Counted in the transaction that inserts, after locking the creator's row: concurrent creates by one
        // user take turns, so 40 at once still leave at most the limit (SQLite: transactions are IMMEDIATE).
        if (creator !== null && this.creation.perUser > 0) {
          const created = await this.organizations.countCreatedByLocked(trx, creator);
          if (created >= this.creation.perUser) throw Errors.organizationsPerUserReached(this.creation.perUser);
        }
        await this.organizations.insert(trx, {
          created_by_user_id: creator,
          name: input.name,
          name_lower: input.name.toLowerCase(),
          email: input.email,
          feature_set: featureSet.name,
          default_execution_mode: mode,
          settings: mergedSettings(undefined, input) ?? '{}',
          created_at: now,
          updated_at: now,
        });
        let creatorMembershipId: string | null = null;
        if (principal.kind === 'user') {
          creatorMembershipId = newId('ou');
          await this.memberships.insert(
            { id: creatorMembershipId, organization_name: input.name, user_id: principal.userId, status: 'active', created_at: now },
            trx,
          );
        }
        for (const hook of this.onCreated) await hook(trx, { name: input.name, creatorMembershipId, creator: principal, now });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return this.show(await this.gate.enter(principal, input.name));
  }

  async list(principal: Principal, page: PageRequest): Promise<Page<OrganizationView>> {
    let names: string[] | undefined;
    if (principal.kind === 'user') names = await this.organizations.namesForUser(principal.userId);
    else if (principal.kind !== 'site-admin') names = [principal.organizationName];
    const { rows, total } = await this.organizations.list({ names }, page.offset, page.size);
    const views: OrganizationView[] = [];
    for (const row of rows) {
      views.push({ organization: row, standing: await this.standings.standingIn(principal, row.name, { teamsEntitled: featureSetOf(row).teams }) });
    }
    return pageOf(page, views, total);
  }

  show(found: OrganizationContext): OrganizationView {
    return { organization: found.organization, standing: found.standing };
  }

  async update(found: OrganizationContext, input: OrganizationUpdateInput): Promise<OrganizationView> {
    const { organization, standing } = found;
    requireAccess(standing, 'organization', 'administer', { name: organization.name });
    if (input.name !== undefined && input.name !== organization.name) {
      throw Errors.organizationRenameUnsupported();
    }
    const changes: Parameters<OrganizationsRepository['update']>[1] = {};
    if (input.email !== undefined) {
      checkEmail(input.email, '/data/attributes/email');
      changes.email = input.email;
    }
    const mode = input['default-execution-mode'];
    if (mode !== undefined) {
      if (!isExecutionMode(mode)) throw Errors.invalidExecutionMode(EXECUTION_MODES, '/data/attributes/default-execution-mode');
      changes.default_execution_mode = mode;
    }
    const settings = mergedSettings(organization.settings, input);
    if (settings !== undefined) changes.settings = settings;
    if (Object.keys(changes).length === 0) return { organization, standing };
    changes.updated_at = nowIso();
    await this.db.transaction().execute(async (trx) => {
      await this.organizations.update(organization.name, changes, trx);
      if (mode !== undefined) await this.onDefaultExecutionMode(trx, organization.name, mode);
    });
    return { organization: { ...organization, ...changes }, standing };
  }

  async delete(found: OrganizationContext): Promise<void> {
    const { organization, standing } = found;
    requireAccess(standing, 'organization', 'administer', { name: organization.name });
    await this.organizations.delete(organization.name);
  }

  entitlements(found: OrganizationContext): OrganizationEdition {
    return { organization: found.organization, featureSet: found.featureSet };
  }

  listFeatureSets(principal: Principal, q: string | undefined): FeatureSet[] {
    requirePersonalAccess(principal, 'administer-site');
    const needle = q?.toLowerCase();
    return FEATURE_SETS.filter((set) => !needle || set.name.toLowerCase().includes(needle));
  }

  /** The `subscribed-organization` lookup: any organization, for a site admin only. */
  async forSiteAdmin(principal: Principal, name: string): Promise<Writable<OrganizationRow>> {
    requirePersonalAccess(principal, 'administer-site');
    const organization = await this.organizations.findByName(name);
    if (!organization) throw Errors.organizationNotFound(name);
    return provenWritable(provenVisible(organization));
  }

  async subscribe(organization: Writable<OrganizationRow>, featureSetId: string): Promise<OrganizationEdition> {
    const featureSet = featureSetById(featureSetId) ?? featureSetByName(featureSetId);
    if (!featureSet) throw Errors.unknownFeatureSet(featureSetId);
    await this.organizations.update(organization.name, { feature_set: featureSet.name, updated_at: nowIso() });
    return { organization, featureSet };
  }
}
