import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { UsersRepository } from '../identity/users.repository.js';
import type { MembershipRow, MembershipsRepository } from '../organizations/memberships.repository.js';
import type { TeamsRepository } from './teams.repository.js';
import type { Team } from './team.js';
import type { TeamAccess } from './teams.service.js';
import type { Principal } from '../core/principal.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { teamMembersChanged } from './team-audit.js';

/** Who joins or leaves, as the audit trail names them. */
type Members = Array<{ membershipId: string; username?: string }>;

/** The audit trail's entry for those who did join or leave (none: no entry; adding a member twice changes nothing). */
function changedMembers(principal: Principal, team: Team, action: 'add_members' | 'remove_members', members: Members, changed: Set<string>) {
  const those = members.filter((member) => changed.has(member.membershipId));
  return those.length > 0 ? [teamMembersChanged(principal, team, action, those)] : [];
}

/**
 * Adding and removing team members, by username or by organization membership id.
 * Users join through their organization membership, so an invited user joins when they accept.
 */
export class TeamMembersService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async addByUsernames(found: TeamAccess, usernames: string[]): Promise<void> {
    const team = this.manageableTeam(found, 'add-members');
    const memberships = await this.membershipsForUsernames(team, usernames);
    await this.add(found.standing.principal, team, memberships.map((membership, index) => ({ membershipId: membership.id, username: usernames[index] })));
  }

  async removeByUsernames(found: TeamAccess, usernames: string[]): Promise<void> {
    const team = this.manageableTeam(found);
    const memberships = await this.membershipsForUsernames(team, usernames);
    await this.remove(found.standing.principal, team, memberships.map((membership, index) => ({ membershipId: membership.id, username: usernames[index] })));
  }

  async addByMembershipIds(found: TeamAccess, membershipIds: string[]): Promise<void> {
    const team = this.manageableTeam(found, 'add-members');
    const memberships = await this.membershipsByIds(team, membershipIds);
    await this.add(found.standing.principal, team, memberships.map((membership) => ({ membershipId: membership.id })));
  }

  async removeByMembershipIds(found: TeamAccess, membershipIds: string[]): Promise<void> {
    const team = this.manageableTeam(found);
    const memberships = await this.membershipsByIds(team, membershipIds);
    await this.remove(found.standing.principal, team, memberships.map((membership) => ({ membershipId: membership.id })));
  }

  /** The memberships join the team, on the audit trail in the same transaction. */
  private async add(principal: Principal, team: Team, members: Members): Promise<void> {
    await this.auditTrail.transaction(async (trx) => {
      const added = await this.teams.addMemberships(team.id, members.map((member) => member.membershipId), nowIso(), trx);
      return { result: undefined, entries: changedMembers(principal, team, 'add_members', members, added) };
    });
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
  private async remove(principal: Principal, team: Team, members: Members): Promise<void> {
    const membershipIds = members.map((member) => member.membershipId);
    if (!team.isOwners) {
      await this.auditTrail.transaction(async (trx) => {
        const removed = await this.teams.removeMemberships(team.id, membershipIds, trx);
        return { result: undefined, entries: changedMembers(principal, team, 'remove_members', members, removed) };
      });
      return;
    }
    await this.teams.withOwnersLocked(team.organizationName, async (trx, active) => {
      const remaining = active.filter((member) => !membershipIds.includes(member.membershipId));
      if (active.length > 0 && remaining.length === 0) {
        // A 403 about the state of the data (who is left in the owners team), not about the caller: no
        // caller may do it, so it is not the access table's to decide.
        throw Errors.lastOwnerCannotBeRemoved();
      }
      const removed = await this.teams.removeMemberships(team.id, membershipIds, trx);
      await this.auditTrail.record(trx, ...changedMembers(principal, team, 'remove_members', members, removed));
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
