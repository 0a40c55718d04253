import type { OrganizationStanding } from './organization-standing.js';
import type { StandingRepository } from './standing.repository.js';
import { requireAccess } from './require-access.js';
import type { ActionOn, Thing, ThingFacts } from './access-table.js';
import { VersionedCache } from '../db/versioned-cache.js';
import type { OrganizationsTable } from '../db/schema.js';
import type { Principal } from '../core/principal.js';
import { featureSetOf, type FeatureSet } from './editions.js';

export interface OrganizationContext {
  organization: OrganizationsTable;
  featureSet: FeatureSet;
  standing: OrganizationStanding;
}

/** How the gate finds an organization; the organizations domain's repository is one (wired in services.ts). */
export interface OrganizationFinder {
  findByName(name: string): Promise<OrganizationsTable | undefined>;
}

/**
 * The first step of every organization-scoped request: the organization, the caller's standing in it,
 * and the access table's verdict on what the caller asks (a missing organization hides everything in it).
 */
export class OrganizationGate {
  /**
   * Keyed by token and organization name (a standing holds its principal, token id included). Shared
   * between requests, so a context is never modified after it is built.
   */
  private readonly contexts: VersionedCache<OrganizationContext>;

  constructor(
    private readonly organizations: OrganizationFinder,
    private readonly standings: StandingRepository,
    identityVersion?: () => string | undefined,
  ) {
    this.contexts = new VersionedCache(identityVersion);
  }

  /** The organization named in the URL, for a caller who may see it. */
  async enter(principal: Principal, organizationName: string): Promise<OrganizationContext> {
    return this.enterFor(principal, organizationName, 'organization', 'read', { name: organizationName });
  }

  /** Settings, entitlements and the organization token: for owners only. */
  async enterAsOwner(principal: Principal, organizationName: string): Promise<OrganizationContext> {
    return this.enterFor(principal, organizationName, 'organization', 'administer', { name: organizationName });
  }

  /** The context of the organization `thing` belongs to, once the access table allows `action` on it. */
  async enterFor<T extends Thing>(
    principal: Principal,
    organizationName: string,
    thing: T,
    action: ActionOn<T>,
    facts: ThingFacts[T],
  ): Promise<OrganizationContext> {
    const context = await this.contextOf(principal, organizationName);
    requireAccess(context?.standing, thing, action, facts);
    return context!;
  }

  /** The organization and the caller's standing in it (an outsider's too), or undefined when it does not exist. */
  contextOf(principal: Principal, organizationName: string): Promise<OrganizationContext | undefined> {
    return this.contexts.get(`${principal.tokenId}\n${organizationName}`, () => this.look(principal, organizationName));
  }

  private async look(principal: Principal, organizationName: string): Promise<OrganizationContext | undefined> {
    const organization = await this.organizations.findByName(organizationName);
    if (!organization) return undefined;
    const featureSet = featureSetOf(organization);
    const standing = await this.standings.standingIn(principal, organization.name, { teamsEntitled: featureSet.teams });
    return { organization, featureSet, standing };
  }
}
