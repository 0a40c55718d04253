import type { Kysely } from 'kysely';
import type { OrganizationStanding } from '../access/organization-standing.js';
import type { Database } from '../db/schema.js';

/**
 * What organization memberships need from the teams domain (an invitation into teams; removing a member
 * from all of them; the owners team that must keep one member). Teams sit above organizations, so
 * organizations owns this port and the teams domain implements it (teams/membership-teams.ts), plugged in
 * in services.ts.
 */
export interface MembershipTeamsPort {
  /** Whether the caller may invite someone into this team: the same right as adding a member to it directly. */
  canInviteInto(organizationName: string, standing: OrganizationStanding, teamId: string): Promise<boolean>;
  /** In the caller's transaction (`executor`) when given. */
  addMembership(teamId: string, membershipId: string, now: string, executor?: Kysely<Database>): Promise<void>;
  ownersTeamId(organizationName: string): Promise<string | undefined>;
  /** Runs `work` in a transaction holding the owners team's lock, with its active members as they are now. */
  withOwnersLocked(organizationName: string, work: (trx: Kysely<Database>, activeOwners: Array<{ membershipId: string }>) => Promise<void>): Promise<void>;
  /** Those of these teams the caller may see. */
  visibleTeamIdsAmong(standing: OrganizationStanding, teamIds: string[]): Promise<Set<string>>;
}
