/**
 * Table types. Both dialects store the same shapes: booleans as 0/1 integers, timestamps as ISO-8601
 * UTC text (sorts correctly, and is exactly what the API returns), JSON as text. One set of repository
 * code then serves SQLite and PostgreSQL.
 */
export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  username: string;
  username_lower: string;
  email: string | null;
  email_lower: string | null;
  is_service_account: Flag;
  created_at: string;
}

export type TokenKind = 'site' | 'user' | 'organization' | 'team';

export interface TokensTable {
  id: string;
  kind: TokenKind;
  token_hash: string;
  user_id: string | null;
  organization_name: string | null;
  team_id: string | null;
  /** 1 for the legacy single team token (`/teams/:id/authentication-token`). */
  is_legacy: Flag;
  description: string | null;
  created_by_id: string | null;
  created_at: string;
  expired_at: string | null;
  last_used_at: string | null;
}

export interface OrganizationsTable {
  name: string;
  name_lower: string;
  email: string;
  feature_set: string;
  created_at: string;
  updated_at: string;
}

export type MembershipStatus = 'invited' | 'active';

export interface OrganizationMembershipsTable {
  id: string;
  organization_name: string;
  user_id: string;
  status: MembershipStatus;
  created_at: string;
}

export interface TeamsTable {
  id: string;
  organization_name: string;
  name: string;
  name_lower: string;
  sso_team_id: string | null;
  visibility: 'secret' | 'organization';
  allow_member_token_management: Flag;
  /** JSON object of the sixteen organization-access booleans. */
  organization_access: string;
  is_owners: Flag;
  /** The `api-team_<suffix>` user, created with the team's first token. */
  service_account_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamMembershipsTable {
  team_id: string;
  organization_membership_id: string;
  created_at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  /** Not before this time (ISO). */
  run_at: string;
  attempts: number;
  /** The node holding the lease, until `locked_until`; an expired lease is free to claim again. */
  locked_by: string | null;
  locked_until: string | null;
  /** At most one pending job per key (e.g. one timeout per result). */
  dedupe_key: string | null;
  last_error: string | null;
  created_at: string;
}

export interface Database {
  jobs: JobsTable;
  users: UsersTable;
  tokens: TokensTable;
  organizations: OrganizationsTable;
  organization_memberships: OrganizationMembershipsTable;
  teams: TeamsTable;
  team_memberships: TeamMembershipsTable;
}
