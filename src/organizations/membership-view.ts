import type { MembershipPermissions } from '../access/organization-permissions.js';
import type { UserRow } from '../identity/users.repository.js';
import type { MembershipRow } from './memberships.repository.js';

/** A membership as the caller sees it: `teamIds` holds only the teams the caller may see. */
export interface MembershipView {
  membership: MembershipRow;
  user: UserRow | undefined;
  teamIds: string[];
  /** What the caller may do with it (access/organization-permissions.ts). */
  permissions: MembershipPermissions;
}
