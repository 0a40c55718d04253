/** Users and tokens. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';

export interface UsersTable {
  id: string;
  username: string;
  username_lower: string;
  email: string | null;
  email_lower: string | null;
  is_service_account: Flag;
  /** Service accounts only: `team:<id>`, `organization:<name>` or `site-admin`, what the account is found by. */
  service_account_owner: string | null;
  created_at: string;
}

/** `audit-trail`: an organization's audit trail token, which coexists with its organization token. */
export type TokenKind = 'site' | 'user' | 'organization' | 'audit-trail' | 'team' | 'agent';

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
  /** 0 for a team token minted by the organization token, or by a token that may not act as a person. */
  acts_as_person: Flag;
  /** An agent token's pool (migration 035); null for every other kind. */
  agent_pool_id?: string | null;
}
