import type { UserRow } from '../identity/users.repository.js';
import type { MembershipRow } from './memberships.repository.js';

/** A membership as the caller sees it: `teamIds` holds only the teams the caller may see. */
export interface MembershipView {
  membership: MembershipRow;
  user: UserRow | undefined;
  teamIds: string[];
}
