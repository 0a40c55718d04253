import type { Kysely } from 'kysely';
import { compiledOnce, fixed } from '../db/compiled-query.js';
import type { Database, OrganizationsTable } from '../db/schema.js';
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

  /** The organization with a user's active membership in it, one row per team (organization-gate.ts reads both at once). */
  private readonly organizationWithMembership = compiledOnce((p: { organizationName: string; userId: string }) =>
    this.db
      .selectFrom('organizations')
      .leftJoin('organization_memberships', (join) =>
        join
          .onRef('organization_memberships.organization_name', '=', 'organizations.name')
          .on('organization_memberships.user_id', '=', p.userId)
          .on('organization_memberships.status', '=', fixed('active' as const)),
      )
      .leftJoin('team_memberships', 'team_memberships.organization_membership_id', 'organization_memberships.id')
      .leftJoin('teams', 'teams.id', 'team_memberships.team_id')
      .select([
        'organizations.name', 'organizations.name_lower', 'organizations.email', 'organizations.feature_set',
        'organizations.created_at', 'organizations.updated_at', 'organizations.default_execution_mode', 'organizations.settings',
        'organization_memberships.id as membership_id',
        'teams.id as team_id', 'teams.is_owners', 'teams.organization_access',
      ])
      .where('organizations.name', '=', p.organizationName),
  );

  /**
   * An organization and a user's membership rows in it, in one statement instead of two; undefined when
   * there is no such organization.
   */
  async organizationForUser(organizationName: string, userId: string): Promise<{ organization: OrganizationsTable; membership: MembershipTeamRow[] } | undefined> {
    const { rows } = await this.organizationWithMembership(this.db, { organizationName, userId });
    const first = rows[0];
    if (!first) return undefined;
    const { name, name_lower, email, feature_set, created_at, updated_at, default_execution_mode, settings } = first;
    return {
      organization: { name, name_lower, email, feature_set, created_at, updated_at, default_execution_mode, settings },
      membership: rows
        .filter((row) => row.membership_id !== null)
        .map((row) => ({ id: row.team_id, is_owners: row.is_owners, organization_access: row.organization_access })),
    };
  }

  /** `teamsEntitled`: whether the organization's edition has teams (organizations/editions.ts). */
  async standingIn(principal: Principal, organizationName: string, edition: { teamsEntitled: boolean }): Promise<OrganizationStanding> {
    const { teamsEntitled } = edition;
    if (principal.kind === 'site-admin' || principal.kind === 'organization') {
      return standingFromTeams(principal, organizationName, { activeMember: false, teams: [], teamsEntitled });
    }
    if (principal.kind === 'agent') {
      return standingFromTeams(principal, organizationName, { activeMember: principal.organizationName === organizationName, teams: [], teamsEntitled });
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
