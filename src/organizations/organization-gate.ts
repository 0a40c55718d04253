import type { OrganizationStanding } from '../access/organization-standing.js';
import type { StandingRepository } from '../access/standing.repository.js';
import { VersionedCache } from '../db/versioned-cache.js';
import { NotFound } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { featureSetOf, type FeatureSet } from '../access/editions.js';
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.js';

export interface OrganizationContext {
  organization: OrganizationRow;
  featureSet: FeatureSet;
  standing: OrganizationStanding;
}

/**
 * The first step of every organization-scoped request: the organization must exist and the caller
 * must belong to it; otherwise 404, so outsiders cannot even learn that it exists.
 */
export class OrganizationGate {
  /**
   * Keyed by token and organization name (a standing holds its principal, token id included). Shared
   * between requests, so a context is never modified after it is built.
   */
  private readonly contexts: VersionedCache<OrganizationContext>;

  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly standings: StandingRepository,
    identityVersion?: () => string | undefined,
  ) {
    this.contexts = new VersionedCache(identityVersion);
  }

  async enter(principal: Principal, organizationName: string): Promise<OrganizationContext> {
    const context = await this.contexts.get(`${principal.tokenId}\n${organizationName}`, () => this.look(principal, organizationName));
    if (!context) throw new NotFound(`organization '${organizationName}' not found`);
    return context;
  }

  /** The context of an organization the caller may see, or undefined for a missing one and outsiders alike. */
  private async look(principal: Principal, organizationName: string): Promise<OrganizationContext | undefined> {
    const organization = await this.organizations.findByName(organizationName);
    if (!organization) return undefined;
    const featureSet = featureSetOf(organization);
    const standing = await this.standings.standingIn(principal, organization.name, { teamsEntitled: featureSet.teams });
    if (!standing.isMember) return undefined;
    return { organization, featureSet, standing };
  }

  /** Like enter, and additionally requires owner rights; a member without them gets 404 as well. */
  async enterAsOwner(principal: Principal, organizationName: string): Promise<OrganizationContext> {
    const context = await this.enter(principal, organizationName);
    if (!context.standing.isOwner) throw new NotFound(`organization '${organizationName}' not found`);
    return context;
  }
}
