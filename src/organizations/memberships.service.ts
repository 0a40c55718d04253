import { nowIso } from '../core/clock.js';
import { provenVisible, provenWritable, type Visible, type Writable } from '../access/lookup-proofs.js';
import { isUniqueViolation } from '../db/database.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import { isReservedUsername } from '../identity/service-account-names.js';
import type { UsersRepository, UserRow } from '../identity/users.repository.js';
import { requireAccess, requirePersonalAccess } from '../access/require-access.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { membershipPermissions } from '../access/organization-permissions.js';
import type { MembershipTeamsPort } from './membership-teams-port.js';
import type { MembershipRow, MembershipsRepository } from './memberships.repository.js';
import type { MembershipView } from './membership-view.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { checkEmail } from '../identity/email.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { membershipChanged } from './membership-audit.js';
import { actorOf } from '../record/actor.js';

export type { MembershipView };

/** A page of memberships and, once each, the users they belong to (for `include=user`). */
export interface MembershipList extends Page<MembershipView> {
  users: UserRow[];
}

/** A membership the caller may see, and the caller's standing in its organization. */
export interface VisibleMembership {
  membership: MembershipRow;
  standing: OrganizationStanding;
}

/** Inviting users into an organization, accepting, listing and removing; invited users join teams only once they accept. */
export class MembershipsService {
  constructor(
    private readonly memberships: MembershipsRepository,
    private readonly users: UsersRepository,
    private readonly teams: MembershipTeamsPort,
    private readonly gate: OrganizationGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  /**
   * Invites by email. An address nobody has registered gets a user record now (as HCP Terraform sends an
   * invitation email), so the invitation can be accepted once that person has a token.
   */
  async invite(found: OrganizationContext, email: string, teamIds: string[]): Promise<MembershipView> {
    const { organization, standing } = found;
    requireAccess(standing, 'organization', 'invite-member', { name: organization.name });
    checkEmail(email, '/data/attributes/email');
    for (const [index, teamId] of teamIds.entries()) {
      if (!(await this.teams.canInviteInto(organization.name, standing, teamId))) {
        throw Errors.inviteTeamNotFound(index, teamId);
      }
    }
    const user = (await this.users.findByEmail(email)) ?? (await this.createInvitedUser(email));
    const row: MembershipRow = {
      id: newId('ou'),
      organization_name: organization.name,
      user_id: user.id,
      status: 'invited',
      created_at: nowIso(),
      // Who invited: the user behind the token (a team token's service account too); none for a token that is no user.
      invited_by_user_id: actorOf(standing.principal).userId,
    };
    try {
      // The membership, its teams and its audit trail entry: one transaction.
      await this.auditTrail.transaction(async (trx) => {
        await this.memberships.insert(row, trx);
        for (const teamId of teamIds) await this.teams.addMembership(teamId, row.id, row.created_at, trx);
        return { result: undefined, entries: [membershipChanged(standing.principal, row, 'invite', { user, teamIds })] };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.alreadyAMember();
      throw error;
    }
    const ownersId = await this.teams.ownersTeamId(organization.name);
    const inOwnersTeam = ownersId !== undefined && teamIds.includes(ownersId);
    return { membership: row, user, teamIds, permissions: membershipPermissions(standing, { inOwnersTeam }) };
  }

  /** The `invitation` lookup: a membership the caller may accept (their own). */
  async invitation(principal: Principal, membershipId: string): Promise<Writable<MembershipRow>> {
    const membership = await this.memberships.findById(membershipId);
    if (!membership) throw Errors.membershipNotFound();
    requirePersonalAccess(principal, 'accept-invitation', membership.user_id);
    return provenWritable(provenVisible(membership));
  }

  /**
   * The invitation as its invited person reads it (`GET /organization-memberships/:id/invitation`, Teamstage's):
   * the organization and who invited them, before they are a member who may read the organization. Their own
   * membership only (the `invitation` lookup); no teams (they see them once they accept), nothing they may change.
   */
  async invitationView(membership: Visible<MembershipRow>): Promise<MembershipView & { inviter: UserRow | undefined }> {
    const [user, inviter] = await Promise.all([
      this.users.findById(membership.user_id),
      membership.invited_by_user_id ? this.users.findById(membership.invited_by_user_id) : undefined,
    ]);
    return { membership, user, inviter, teamIds: [], permissions: { 'can-destroy': false } };
  }

  async accept(principal: Principal, membership: Writable<MembershipRow>): Promise<MembershipView> {
    if (membership.status !== 'active') {
      await this.auditTrail.transaction(async (trx) => {
        await this.memberships.activate(membership.id, trx);
        return { result: undefined, entries: [membershipChanged(principal, membership, 'accept')] };
      });
    }
    // As a member now: its teams are shown as any listing shows them (not those the edition hides).
    const { standing } = await this.gate.enter(principal, membership.organization_name);
    const user = await this.users.findById(membership.user_id);
    const [view] = await this.views([{ ...membership, status: 'active' }], new Map(user ? [[user.id, user]] : []), standing);
    return view!;
  }

  async list(found: OrganizationContext, options: { q?: string; status?: string; emails?: string[]; page: PageRequest }): Promise<MembershipList> {
    const { organization, standing } = found;
    if (options.status !== undefined && options.status !== 'invited' && options.status !== 'active') {
      throw Errors.invalidMembershipStatusFilter();
    }
    const { rows, total } = await this.memberships.list(
      { organizationName: organization.name, q: options.q, status: options.status, emails: options.emails },
      options.page.offset,
      options.page.size,
    );
    const users = new Map((await this.users.findManyByIds(rows.map((row) => row.user_id))).map((user) => [user.id, user]));
    return { ...pageOf(options.page, await this.views(rows, users, standing), total), users: [...users.values()] };
  }

  async show(found: VisibleMembership): Promise<MembershipView> {
    const { membership, standing } = found;
    const user = await this.users.findById(membership.user_id);
    const [view] = await this.views([membership], new Map(user ? [[user.id, user]] : []), standing);
    return view!;
  }

  /**
   * Removes the user from the organization and all its teams, owners included: so only owners may remove a
   * member of the owners team (or withdraw an invitation into it), and the last owner cannot leave.
   */
  async delete(found: VisibleMembership): Promise<void> {
    const { membership, standing } = found;
    const ownersId = await this.teams.ownersTeamId(membership.organization_name);
    const inOwnersTeam = ownersId !== undefined && ((await this.memberships.teamIdsOf([membership.id])).get(membership.id) ?? []).includes(ownersId);
    requireAccess(standing, 'membership', 'delete', { inOwnersTeam });
    // Under the owners team's lock, which every removal of an owner takes: two owners leaving at once cannot
    // each count the other as the one who stays. `active` holds active memberships only, as they are now.
    await this.teams.withOwnersLocked(membership.organization_name, async (trx, active) => {
      if (active.length === 1 && active[0]!.membershipId === membership.id) {
        // A 403 about the state of the data (nobody else left in the owners team), not about the caller:
        // no caller may do it, so it is not the access table's to decide.
        throw Errors.lastOwnerCannotLeave();
      }
      await this.memberships.delete(membership.id, trx);
      await this.auditTrail.record(trx, membershipChanged(standing.principal, membership, 'destroy'));
    });
  }

  /** The `membership` lookup: a membership of an organization where the caller may read memberships. */
  async visibleMembership(principal: Principal, membershipId: string): Promise<VisibleMembership> {
    const membership = await this.memberships.findById(membershipId);
    if (!membership) throw Errors.membershipNotFound();
    const { standing } = await this.gate.enterFor(principal, membership.organization_name, 'membership', 'read', {});
    return { membership, standing };
  }

  private async views(rows: MembershipRow[], users: Map<string, UserRow>, standing: OrganizationStanding): Promise<MembershipView[]> {
    const teamIdsByMembership = await this.memberships.teamIdsOf(rows.map((row) => row.id));
    const [visible, ownersId] = await Promise.all([
      this.teams.visibleTeamIdsAmong(standing, [...new Set([...teamIdsByMembership.values()].flat())]),
      rows.length > 0 ? this.teams.ownersTeamId(standing.organizationName) : undefined,
    ]);
    return rows.map((row) => {
      const teamIds = teamIdsByMembership.get(row.id) ?? [];
      return {
        membership: row,
        user: users.get(row.user_id),
        teamIds: teamIds.filter((id) => visible.has(id)),
        // From all its teams, secret ones too: whether it is an owner decides who may remove it.
        permissions: membershipPermissions(standing, { inOwnersTeam: ownersId !== undefined && teamIds.includes(ownersId) }),
      };
    });
  }

  private async createInvitedUser(email: string): Promise<UserRow> {
    const derived = email.split('@')[0]!.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 60) || 'user';
    // The local part is the inviter's choice: it must not take a name reserved for service accounts.
    const local = isReservedUsername(derived) ? `user-${derived}` : derived;
    for (let attempt = 0; ; attempt++) {
      const username = attempt === 0 ? local : `${local}-${newId('user').slice(-6)}`;
      const row: UserRow = {
        id: newId('user'),
        username,
        username_lower: username.toLowerCase(),
        email,
        email_lower: email.toLowerCase(),
        is_service_account: 0,
        service_account_owner: null,
        created_at: nowIso(),
      };
      try {
        await this.users.insert(row);
        return row;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt > 5) throw error;
        const byEmail = await this.users.findByEmail(email);
        if (byEmail) return byEmail;
      }
    }
  }
}
