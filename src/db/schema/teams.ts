/** Teams and their members. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';

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
