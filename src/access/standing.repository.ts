import type { Kysely } from 'kysely';
import { compiledOnce, fixed } from '../db/compiled-query.js';
import type { Database } from '../db/schema.js';
import type { Principal } from '../core/principal.js';
import { parseStoredAccess } from './organization-access.js';
import { standingFromTeams, type CallerTeam, type OrganizationStanding } from './organization-standing.js';

/**
 * A user's active membership in an organization as one row per team it belongs to (a null team when it
 * belongs to none); no rows when the user is not an active member. Also what a resource's own statement
 * reads when it takes the caller's standing along (teams.repository.ts reads a team that way).
 */
export interface MembershipTeamRow {
  id: string | null;
  is_owners: number | null;
  organization_access: string | null;
}

/** Pure: a user's standing from their membership rows (`MembershipTeamRow`). */
export function userStanding(principal: Principal, organizationName: string, rows: readonly MembershipTeamRow[], teamsEntitled: boolean): OrganizationStanding {
  if (rows.length === 0) return standingFromTeams(principal, organizationName, { activeMember: false, teams: [], teamsEntitled });
  const teams: CallerTeam[] = [];
  for (const row of rows) {
    if (row.id === null || row.organization_access === null) continue;
    teams.push({ id: row.id, isOwners: row.is_owners === 1, access: parseStoredAccess(row.organization_access) });
  }
  return standingFromTeams(principal, organizationName, { activeMember: true, teams, teamsEntitled });
}

/** Loads the facts a standing is computed from: the caller's active membership and teams. */
export class StandingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // Run by nearly every request: their SQL is built once (compiled-query.ts), not per request.
  private readonly tokenTeam = compiledOnce((p: { teamId: string }) =>
    this.db.selectFrom('teams').select(['id', 'is_owners', 'organization_access']).where('id', '=', p.teamId),
  );
  /** The active membership, with one row per team it belongs to (a null team when none). */
  private readonly membershipTeams = compiledOnce((p: { organizationName: string; userId: string }) =>
    this.db
      .selectFrom('organization_memberships')
      .leftJoin('team_memberships', 'team_memberships.organization_membership_id', 'organization_memberships.id')
      .leftJoin('teams', 'teams.id', 'team_memberships.team_id')
      .select(['teams.id', 'teams.is_owners', 'teams.organization_access'])
      .where('organization_memberships.organization_name', '=', p.organizationName)
      .where('organization_memberships.user_id', '=', p.userId)
      .where('organization_memberships.status', '=', fixed('active' as const)),
  );

  /** `teamsEntitled`: whether the organization's edition has teams (organizations/editions.ts). */
  async standingIn(principal: Principal, organizationName: string, edition: { teamsEntitled: boolean }): Promise<OrganizationStanding> {
    const { teamsEntitled } = edition;
    if (principal.kind === 'site-admin' || principal.kind === 'organization') {
      return standingFromTeams(principal, organizationName, { activeMember: false, teams: [], teamsEntitled });
    }
    if (principal.kind === 'team') {
      if (principal.organizationName !== organizationName) {
        return standingFromTeams(principal, organizationName, { activeMember: false, teams: [], teamsEntitled });
      }
      const team = (await this.tokenTeam(this.db, { teamId: principal.teamId })).rows[0];
      const teams: CallerTeam[] = team
        ? [{ id: team.id, isOwners: team.is_owners === 1, access: parseStoredAccess(team.organization_access) }]
        : [];
      return standingFromTeams(principal, organizationName, { activeMember: teams.length > 0, teams, teamsEntitled });
    }
    // One query: the active membership, with one row per team it belongs to (a null team when none).
    const { rows } = await this.membershipTeams(this.db, { organizationName, userId: principal.userId });
    return userStanding(principal, organizationName, rows, teamsEntitled);
  }
}
