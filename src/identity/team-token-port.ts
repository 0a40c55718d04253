import type { OrganizationStanding } from '../access/organization-standing.js';
import type { TeamFacts } from '../access/team-permissions.js';

/** A team as token management needs it: the stored team's fields, read by identity only through this port. */
export interface TokenTeam extends TeamFacts {
  organizationName: string;
  isOwners: boolean;
  serviceAccountUserId: string | null;
}

/**
 * The proof of the teams domain's `team` lookup (TeamAccess), as token management reads it: a team the
 * caller may see, and the caller's standing in its organization.
 */
export interface VisibleTokenTeam {
  row: TokenTeam;
  standing: OrganizationStanding;
}

/**
 * What token management needs from the teams domain. Teams sit above identity, so identity owns this port
 * and the teams domain implements it (teams/team-token-access.ts), plugged in in services.ts.
 */
export interface TeamTokenPort {
  /** The team, whoever asks: the caller's right to it is the access table's to judge. */
  findById(teamId: string): Promise<TokenTeam | undefined>;
  /** Records the service account made for the team's first token. */
  setServiceAccount(teamId: string, userId: string): Promise<void>;
}
