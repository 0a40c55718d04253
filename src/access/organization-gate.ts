import type { OrganizationStanding } from './organization-standing.js';
import { userStanding, type MembershipTeamRow, type StandingRepository } from './standing.repository.js';
import { requireAccess } from './require-access.js';
import type { ActionOn, Thing, ThingFacts } from './access-table.js';
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
  constructor(
    private readonly organizations: OrganizationFinder,
    private readonly standings: StandingRepository,
  ) {}

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

  /**
   * `enterFor` for a caller whose membership rows a resource's own statement already read along with the
   * resource and its organization (one statement instead of three: teams.repository.ts `readForCaller`):
   * a user's membership teams there, a team token's own team when it is of that organization, none for
   * others (standingFromTeams decides site admins and organization tokens without rows).
   * The verdict is the access table's, as for every other request.
   */
  enterWithMembership<T extends Thing>(
    principal: Principal,
    organization: OrganizationsTable,
    membership: readonly MembershipTeamRow[],
    thing: T,
    action: ActionOn<T>,
    facts: ThingFacts[T],
  ): OrganizationContext {
    const context = userContext(principal, organization, membership);
    requireAccess(context.standing, thing, action, facts);
    return context;
  }

  /** The organization and the caller's standing in it (an outsider's too), or undefined when it does not exist. */
  async contextOf(principal: Principal, organizationName: string): Promise<OrganizationContext | undefined> {
    if (principal.kind === 'user') {
      // The common caller: the organization and the membership in one statement.
      const found = await this.standings.organizationForUser(organizationName, principal.userId);
      return found && userContext(principal, found.organization, found.membership);
    }
    const organization = await this.organizations.findByName(organizationName);
    if (!organization) return undefined;
    const featureSet = featureSetOf(organization);
    const standing = await this.standings.standingIn(principal, organization.name, { teamsEntitled: featureSet.teams });
    return { organization, featureSet, standing };
  }
}

/** A user's context in an organization, from the organization and their membership rows there. */
function userContext(principal: Principal, organization: OrganizationsTable, membership: readonly MembershipTeamRow[]): OrganizationContext {
  const featureSet = featureSetOf(organization);
  return { organization, featureSet, standing: userStanding(principal, organization.name, membership, featureSet.teams) };
}
