import type { OrganizationStanding } from '../access/organization-standing.js';
import type { StandingRepository } from '../access/standing.repository.js';
import { NotFound } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { featureSetOf, type FeatureSet } from './editions.js';
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
/** The context a caller has in an organization; the key names the token and the organization. */
export type ContextLookup = (key: string, principal: Principal, organizationName: string) => Promise<OrganizationContext | undefined>;

export class OrganizationGate {
  private readonly lookUpContext: ContextLookup;

  /**
   * `wrap`: a port for the composition root, which may put a cache around the lookup (src/cache/). A
   * context may then be shared between requests, so it is never modified after it is built.
   */
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly standings: StandingRepository,
    wrap: (lookUp: ContextLookup) => ContextLookup = (lookUp) => lookUp,
  ) {
    this.lookUpContext = wrap((_key, principal, organizationName) => this.look(principal, organizationName));
  }

  async enter(principal: Principal, organizationName: string): Promise<OrganizationContext> {
    const context = await this.lookUpContext(`${principal.tokenId}\n${organizationName}`, principal, organizationName);
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
