import { CompiledQuery, type Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Dialect } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { AuthenticationRow } from '../identity/authenticate.js';
import { TEAM_READ_COLUMNS, TEAM_READ_DIALECTS, teamReadAggregates, teamReadFromRow, userTeams, type SqlDialect, type TeamReadForCaller, type TeamReadRow } from './team-read-for-caller.js';

/** The credential and, when the team exists, the caller's read of it (team-read-for-caller.ts). */
export interface TeamReadWithCredential {
  /** Undefined when no token has this digest. */
  credential: AuthenticationRow | undefined;
  /** Undefined when no team has this id (or no token matched). */
  team: TeamReadForCaller | undefined;
}

/**
 * GET and PATCH /teams/:id in one statement where they took two (issue 39): the token as authentication
 * reads it (tokens.repository.ts `findForAuthentication`, the same joins) and the caller's read of the team
 * (team-read-for-caller.ts), whose standing is the token's user's memberships or the token's own team, as
 * `teamReaderOf` would choose from the principal. Site and organization tokens read no rows there, as
 * before. Each statement is a round trip, a socket write on each side and PostgreSQL's per-statement work:
 * the largest part of a team read's CPU that was left. The authenticator still decides from the token
 * columns alone (expiry, kind, edition): nothing of the team is used unless it accepts the token.
 * A token's own team is already joined (`kt`): its standing there is taken from those columns (`k_team_access`)
 * rather than from a subquery aggregating the same row as JSON (`tokenTeam`), which was a fifth of
 * PostgreSQL's work on a team token's read (issue 39). Only a user's teams need the subquery.
 * Parameters in the order they appear (SQLite's `?`): now, team id, token digest.
 */
function sql(dialect: SqlDialect): string {
  return `
select k.id as k_id, k.kind as k_kind, k.token_hash as k_token_hash, k.expired_at as k_expired_at,
  k.organization_name as k_organization_name, k.acts_as_person as k_acts_as_person, k.agent_pool_id as k_agent_pool_id,
  ku.id as k_user_id, ku.username as k_username,
  kt.id as k_team_id, kt.organization_name as k_team_organization, kt.service_account_user_id as k_service_account_user_id,
  kt.is_owners as k_team_is_owners, ko.feature_set as k_team_feature_set, kt.organization_access as k_team_access,
  ${TEAM_READ_COLUMNS},
  case when k.kind = 'user' then ${userTeams(dialect, 'ku.id')} end as caller_teams,
  ${teamReadAggregates(dialect, dialect.parameter(1))}
from tokens k
left join users ku on ku.id = k.user_id
left join teams kt on kt.id = k.team_id
left join organizations ko on ko.name = kt.organization_name
left join teams t on t.id = ${dialect.parameter(2)}
left join organizations o on o.name = t.organization_name
where k.token_hash = ${dialect.parameter(3)}`;
}

const SQL: Record<Dialect, string> = { sqlite: sql(TEAM_READ_DIALECTS.sqlite), postgres: sql(TEAM_READ_DIALECTS.postgres) };

/** The token's columns (`k_`), and the team's read, all null when no team has the id. */
type Row = { [K in keyof AuthenticationRow as `k_${K & string}`]: AuthenticationRow[K] } & { k_team_access: string | null } & { [K in keyof TeamReadRow]: TeamReadRow[K] | null };

export async function readTeamWithCredential(db: Kysely<Database>, dialect: Dialect, tokenDigest: string, teamId: string, now: string): Promise<TeamReadWithCredential> {
  const { rows } = await db.executeQuery(CompiledQuery.raw(SQL[dialect], [now, teamId, tokenDigest]));
  const row = rows[0] as Row | undefined;
  if (!row) return { credential: undefined, team: undefined };
  const credential: AuthenticationRow = {
    id: row.k_id, kind: row.k_kind, token_hash: row.k_token_hash, expired_at: row.k_expired_at, organization_name: row.k_organization_name,
    acts_as_person: row.k_acts_as_person, agent_pool_id: row.k_agent_pool_id, user_id: row.k_user_id, username: row.k_username,
    team_id: row.k_team_id, team_organization: row.k_team_organization, service_account_user_id: row.k_service_account_user_id,
    team_is_owners: row.k_team_is_owners, team_feature_set: row.k_team_feature_set,
  };
  if (row.id === null) return { credential, team: undefined };
  const team = teamReadFromRow(row as TeamReadRow);
  if (row.k_kind !== 'user') team.membership = tokenTeamMembership(row);
  return { credential, team };
}

/**
 * A token's own team as the caller's membership there, as `tokenTeam` (team-read-for-caller.ts) reads it: that
 * team when it is in the read team's organization, none otherwise (an outsider there; also every token of no team).
 */
function tokenTeamMembership(row: Row): TeamReadForCaller['membership'] {
  if (row.k_team_id === null || row.k_team_organization !== row.organization_name) return [];
  return [{ id: row.k_team_id, is_owners: Number(row.k_team_is_owners), organization_access: row.k_team_access }];
}

/** The team's read taken along with the request's credential: the `team` lookup uses it instead of reading again. */
export interface TeamReadAhead {
  teamId: string;
  team: TeamReadForCaller | undefined;
}

/** What the authentication hook calls on a route whose lookup is the team (http/authentication.ts). */
export class TeamReadsWithCredential {
  constructor(private readonly read: (tokenDigest: string, teamId: string, now: string) => Promise<TeamReadWithCredential>) {}

  async withCredential(tokenDigest: string, teamId: string): Promise<{ credential: AuthenticationRow | undefined; readAhead: TeamReadAhead }> {
    const { credential, team } = await this.read(tokenDigest, teamId, nowIso());
    return { credential, readAhead: { teamId, team } };
  }
}
