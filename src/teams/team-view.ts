import type { TeamPermissions } from '../access/team-permissions.js';
import type { UserRow } from '../identity/users.repository.js';
import type { MembershipView } from '../organizations/membership-view.js';
import type { Team, TeamMember } from './team.js';

/** Everything a team document shows, gathered by the service. */
export interface TeamView {
  team: Team;
  /** Active members only. */
  members: TeamMember[];
  /** Invited (not yet accepted) memberships: in the organization-memberships relationship, never in users. */
  invitedMembershipIds: string[];
  /** The `api-team_…` account when the team holds a token: a member in `users`, not a person. */
  serviceAccountUserId: string | null;
}

/** A team with what the caller may do to it. */
export interface TeamDetails {
  view: TeamView;
  permissions: TeamPermissions;
}

/** The related records a caller asked for (`include=users,organization-memberships`), each once. */
export interface TeamRelated {
  /** Sorted by username. */
  users: UserRow[];
  /** Whether the caller may see those users' emails (members of the organization may). */
  emailsVisible: boolean;
  memberships: MembershipView[];
}
