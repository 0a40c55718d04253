import { CompiledQuery, type Kysely } from 'kysely';
import type { MembershipTeamRow } from '../access/standing.repository.js';
import type { Dialect } from '../db/database.js';
import type { Database, OrganizationsTable, TeamsTable } from '../db/schema.js';
import { teamFromRow, type Team, type TeamMember } from './team.js';

/**
 * Whose standing the read takes along: a user's (their membership's teams in the team's organization) or a
 * team token's (its own team, when that is in the team's organization). Site admins and organization tokens
 * need no rows (organization-standing.ts): they read as a team token of no team.
 */
export type TeamReader = { kind: 'user'; userId: string } | { kind: 'team'; teamId: string };

/** Everything a caller's read of one team needs, from one statement. */
export interface TeamReadForCaller {
  team: Team;
  /** The row as stored: what a PATCH compares before it writes (teams.repository.ts `updateIfUnchanged`). */
  stored: TeamsTable;
  organization: OrganizationsTable;
  /** The caller's teams in the team's organization, as membership rows (access/standing.repository.ts). */
  membership: MembershipTeamRow[];
  /** Active members, in the order the team document lists them. */
  members: TeamMember[];
  /** Memberships of the team not yet accepted: listed in its organization-memberships, never in users. */
  invitedMembershipIds: string[];
  /** Whether the team holds an unexpired token (its service account then counts as a member). */
  holdsToken: boolean;
}

/** The team's and its organization's columns, as the read's row carries them (`o_` for the organization). */
export const TEAM_READ_COLUMNS = `t.id, t.organization_name, t.name, t.name_lower, t.sso_team_id, t.visibility, t.allow_member_token_management,
  t.organization_access, t.is_owners, t.service_account_user_id, t.created_at, t.updated_at,
  o.name as o_name, o.name_lower as o_name_lower, o.email as o_email, o.feature_set as o_feature_set,
  o.created_at as o_created_at, o.updated_at as o_updated_at`;

/**
 * The team, its organization, the caller's teams there, the team's active members and whether it holds a
 * token: what the three statements organization + standing, team, and members + token took before (issue 18;
 * issue 39 for team tokens, which took six). Lists are aggregated as JSON arrays so one row carries them.
 * Parameters: the user's or the token team's id, now, team id.
 */
function teamReadSql(reader: TeamReader['kind'], dialect: SqlDialect): string {
  const caller = dialect.parameter(1);
  return `
select ${TEAM_READ_COLUMNS},
  ${reader === 'user' ? userTeams(dialect, caller) : tokenTeam(dialect, caller)} as caller_teams,
  ${teamReadAggregates(dialect, dialect.parameter(2))}
from teams t join organizations o on o.name = t.organization_name
where t.id = ${dialect.parameter(3)}`;
}

export interface SqlDialect {
  /** The n-th parameter's placeholder. */
  parameter: (n: 1 | 2 | 3) => string;
  /** A JSON array with one array of `items` per row. */
  jsonRows: (items: string) => string;
  /** The team's memberships as a JSON array of [user id, membership id, status], in the order documents list them. */
  members: string;
}

/** The team's members and whether it holds an unexpired token (`now`: the placeholder of the time). */
export const teamReadAggregates = (dialect: SqlDialect, now: string) => `${dialect.members} as members,
  exists (select 1 from tokens k where k.kind = 'team' and k.team_id = t.id and (k.expired_at is null or k.expired_at > ${now})) as holds_token`;

/** A user's active membership in the team's organization, one row per team it belongs to (a null team when none). */
export const userTeams = (dialect: SqlDialect, userId: string) => `(select ${dialect.jsonRows('ct.id, ct.is_owners, ct.organization_access')}
     from organization_memberships m
     left join team_memberships ctm on ctm.organization_membership_id = m.id
     left join teams ct on ct.id = ctm.team_id
     where m.organization_name = t.organization_name and m.user_id = ${userId} and m.status = 'active')`;

/** A team token's own team, when it is in the team's organization (none otherwise: an outsider there). */
export const tokenTeam = (dialect: SqlDialect, teamId: string) => `(select ${dialect.jsonRows('ct.id, ct.is_owners, ct.organization_access')}
     from teams ct where ct.id = ${teamId} and ct.organization_name = t.organization_name)`;

export const TEAM_READ_DIALECTS: Record<Dialect, SqlDialect> = {
  sqlite: {
    parameter: () => '?',
    jsonRows: (items) => `json_group_array(json_array(${items}))`,
    // json_group_array takes no ORDER BY (before SQLite 3.44): it aggregates an ordered subquery.
    members: `(select json_group_array(json_array(x.user_id, x.id, x.status)) from (
     select om.user_id, om.id, om.status from team_memberships tm
     join organization_memberships om on om.id = tm.organization_membership_id
     where tm.team_id = t.id
     order by tm.created_at, om.id) x)`,
  },
  postgres: {
    parameter: (n) => `$${n}`,
    jsonRows: (items) => `json_agg(json_build_array(${items}))`,
    members: `(select json_agg(json_build_array(om.user_id, om.id, om.status) order by tm.created_at, om.id)
     from team_memberships tm
     join organization_memberships om on om.id = tm.organization_membership_id
     where tm.team_id = t.id)`,
  },
};

const SQL: Record<Dialect, Record<TeamReader['kind'], string>> = {
  sqlite: { user: teamReadSql('user', TEAM_READ_DIALECTS.sqlite), team: teamReadSql('team', TEAM_READ_DIALECTS.sqlite) },
  postgres: { user: teamReadSql('user', TEAM_READ_DIALECTS.postgres), team: teamReadSql('team', TEAM_READ_DIALECTS.postgres) },
};

/** The read's row: the team's columns, its organization's (`o_`), and the aggregates. */
export interface TeamReadRow extends TeamsTable {
  o_name: string;
  o_name_lower: string;
  o_email: string;
  o_feature_set: string;
  o_created_at: string;
  o_updated_at: string;
  /** JSON text on SQLite, already parsed on PostgreSQL (null there when there is no row to aggregate). */
  caller_teams: string | Array<[string | null, number | null, string | null]> | null;
  members: string | Array<[string, string, string]> | null;
  holds_token: number | boolean;
}

const parsed = <T>(value: string | T[] | null): T[] => (value === null ? [] : typeof value === 'string' ? (JSON.parse(value) as T[]) : value);

export async function readTeamForCaller(db: Kysely<Database>, dialect: Dialect, teamId: string, reader: TeamReader, now: string): Promise<TeamReadForCaller | undefined> {
  const callerId = reader.kind === 'user' ? reader.userId : reader.teamId;
  const { rows } = await db.executeQuery(CompiledQuery.raw(SQL[dialect][reader.kind], [callerId, now, teamId]));
  const row = rows[0] as TeamReadRow | undefined;
  return row && teamReadFromRow(row);
}

/** The read from its row (also the row of team-read-with-credential.ts, whose token columns are left aside). */
export function teamReadFromRow(row: TeamReadRow): TeamReadForCaller {
  const { o_name, o_name_lower, o_email, o_feature_set, o_created_at, o_updated_at, caller_teams, members, holds_token } = row;
  const team: TeamsTable = {
    id: row.id, organization_name: row.organization_name, name: row.name, name_lower: row.name_lower, sso_team_id: row.sso_team_id,
    visibility: row.visibility, allow_member_token_management: row.allow_member_token_management, organization_access: row.organization_access,
    is_owners: row.is_owners, service_account_user_id: row.service_account_user_id, created_at: row.created_at, updated_at: row.updated_at,
  };
  const teamId = team.id;
  const memberships = parsed(members);
  return {
    team: teamFromRow(team),
    stored: team,
    organization: { name: o_name, name_lower: o_name_lower, email: o_email, feature_set: o_feature_set, created_at: o_created_at, updated_at: o_updated_at },
    membership: parsed(caller_teams).map(([id, isOwners, access]) => ({ id, is_owners: isOwners === null ? null : Number(isOwners), organization_access: access })),
    members: memberships.filter(([, , status]) => status === 'active').map(([memberUserId, membershipId]) => ({ teamId, userId: memberUserId, membershipId })),
    invitedMembershipIds: memberships.filter(([, , status]) => status !== 'active').map(([, membershipId]) => membershipId),
    holdsToken: holds_token === true || holds_token === 1,
  };
}
