import { fullAccess, parseStoredAccess, type OrganizationAccess } from '../access/organization-access.js';
import type { TeamsTable } from '../db/schema.js';

/**
 * A team as services and serializers see it: flags as booleans and the organization access as an object,
 * decoded once where the row is read (teams.repository.ts) instead of at each use. Its shape also
 * satisfies `TeamFacts`, so the permission rules take a team as it is.
 */
export interface Team {
  id: string;
  organizationName: string;
  name: string;
  ssoTeamId: string | null;
  visibility: 'secret' | 'organization';
  allowMemberTokenManagement: boolean;
  /** The organization's owners team: one per organization, created with it, never renamed or deleted. */
  isOwners: boolean;
  /** What the team grants in its organization; the owners team grants everything, whatever is stored. */
  access: OrganizationAccess;
  /** The team's `api-team_…` account, once it has held a token. */
  serviceAccountUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

export function teamFromRow(row: TeamsTable): Team {
  const isOwners = row.is_owners === 1;
  return {
    id: row.id,
    organizationName: row.organization_name,
    name: row.name,
    ssoTeamId: row.sso_team_id,
    visibility: row.visibility,
    allowMemberTokenManagement: row.allow_member_token_management === 1,
    isOwners,
    access: isOwners ? fullAccess() : parseStoredAccess(row.organization_access),
    serviceAccountUserId: row.service_account_user_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** An active member of a team: the user and their organization membership. */
export interface TeamMember {
  teamId: string;
  userId: string;
  membershipId: string;
}
