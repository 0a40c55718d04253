/** Organizations, their memberships and team counts. One area of the database schema; src/db/schema.ts gathers them. */

export interface OrganizationsTable {
  name: string;
  name_lower: string;
  email: string;
  feature_set: string;
  created_at: string;
  updated_at: string;
  /** The user who created it (TEAMSTAGE_ORGANIZATIONS_PER_USER counts these); null: the site admin, or before migration 014. */
  created_by_user_id?: string | null;
  /** What workspaces without their own execution mode follow (migration 033). */
  default_execution_mode?: string;
  /** HCP's other organization settings, a JSON object (src/organizations/organization-settings.ts; migration 033). Optional: reads that only gate access leave both out. */
  settings?: string;
}

export type MembershipStatus = 'invited' | 'active';

export interface OrganizationMembershipsTable {
  id: string;
  organization_name: string;
  user_id: string;
  status: MembershipStatus;
  created_at: string;
  /** The user who invited them (a person or a team token's service account; migration 048); null: before it, or a token that is no user. */
  invited_by_user_id?: string | null;
}

/** Maintained by triggers (migration 005): how many teams, and how many with visibility `organization`. */
export interface OrganizationTeamCountsTable {
  organization_name: string;
  teams: number;
  visible_teams: number;
}
