import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { UsersRepository } from '../identity/users.repository.js';
import type { MembershipRow, MembershipsRepository } from '../organizations/memberships.repository.js';
import type { TeamsRepository } from './teams.repository.js';
import type { Team } from './team.js';
import type { TeamAccess } from './teams.service.js';

/**
 * Adding and removing team members, by username or by organization membership id.
 * Users join through their organization membership, so an invited user joins when they accept.
 */
export class TeamMembersService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
  ) {}

  async addByUsernames(found: TeamAccess, usernames: string[]): Promise<void> {
    const team = this.manageableTeam(found, 'add-members');
    const memberships = await this.membershipsForUsernames(team, usernames);
    await this.teams.addMemberships(team.id, memberships.map((membership) => membership.id), nowIso());
  }

  async removeByUsernames(found: TeamAccess, usernames: string[]): Promise<void> {
    const team = this.manageableTeam(found);
    const memberships = await this.membershipsForUsernames(team, usernames);
    await this.remove(team, memberships.map((membership) => membership.id));
  }

  async addByMembershipIds(found: TeamAccess, membershipIds: string[]): Promise<void> {
    const team = this.manageableTeam(found, 'add-members');
    const memberships = await this.membershipsByIds(team, membershipIds);
    await this.teams.addMemberships(team.id, memberships.map((membership) => membership.id), nowIso());
  }

  async removeByMembershipIds(found: TeamAccess, membershipIds: string[]): Promise<void> {
    const team = this.manageableTeam(found);
    const memberships = await this.membershipsByIds(team, membershipIds);
    await this.remove(team, memberships.map((membership) => membership.id));
  }

  /** `add-members` also refuses a team the edition lacks; removing from one stays open (the access table). */
  private manageableTeam(found: TeamAccess, action: 'add-members' | 'manage-members' = 'manage-members'): Team {
    const { row, standing } = found;
    requireAccess(standing, 'team', action, row);
    return row;
  }

  /**
   * The owners team must keep at least one active member, or nobody could administer the organization. The
   * count and the removal happen under the owners team's lock, which every removal of an owner takes.
   */
  private async remove(team: Team, membershipIds: string[]): Promise<void> {
    if (!team.isOwners) {
      await this.teams.removeMemberships(team.id, membershipIds);
      return;
    }
    await this.teams.withOwnersLocked(team.organizationName, async (trx, active) => {
      const remaining = active.filter((member) => !membershipIds.includes(member.membershipId));
      if (active.length > 0 && remaining.length === 0) {
        // A 403 about the state of the data (who is left in the owners team), not about the caller: no
        // caller may do it, so it is not the access table's to decide.
        throw Errors.lastOwnerCannotBeRemoved();
      }
      await this.teams.removeMemberships(team.id, membershipIds, trx);
    });
  }

  private async membershipsForUsernames(team: Team, usernames: string[]): Promise<MembershipRow[]> {
    const result: MembershipRow[] = [];
    for (const [index, username] of usernames.entries()) {
      const user = await this.users.findByUsername(username);
      const membership = user && (await this.memberships.findByUser(team.organizationName, user.id));
      if (!membership || membership.status !== 'active') {
        throw Errors.notAnActiveMember(index, username);
      }
      result.push(membership);
    }
    return result;
  }

  private async membershipsByIds(team: Team, ids: string[]): Promise<MembershipRow[]> {
    const result: MembershipRow[] = [];
    for (const [index, id] of ids.entries()) {
      const membership = await this.memberships.findById(id);
      if (!membership || membership.organization_name !== team.organizationName) {
        throw Errors.membershipNotInOrganization(index, id);
      }
      result.push(membership);
    }
    return result;
  }
}
