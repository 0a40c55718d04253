import {
  seesAllTeams, teamPermissions, type TeamFacts,
} from '../access/team-permissions.js';
import { allows, requireAccess } from '../access/require-access.js';
import { membershipPermissions } from '../access/organization-permissions.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import type { UserRow, UsersRepository } from '../identity/users.repository.js';
import type { MembershipsRepository } from '../organizations/memberships.repository.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import {
  mergeOrganizationAccess, noAccess, type AccessChange, type OrganizationAccess,
} from '../access/organization-access.js';
import { TeamInserts } from './team-inserts.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { auditRow } from '../record/audit-trail.js';
import { teamCreated, teamDeleted, teamUpdated } from './team-audit.js';
import { nameKey, nameProblem } from '../core/team-name.js';
import type { TeamChanges, TeamRow, TeamsRepository } from './teams.repository.js';
import { teamFromRow, type Team } from './team.js';
import type { TeamReader } from './team-read-for-caller.js';
import type { TeamReadAhead } from './team-read-with-credential.js';
import type { TeamDetails, TeamRelated, TeamView } from './team-view.js';

export type TeamInclude = 'users' | 'organization-memberships';
export const TEAM_INCLUDES: readonly TeamInclude[] = ['users', 'organization-memberships'];

export interface TeamAttributesInput {
  name?: string;
  'sso-team-id'?: string | null;
  visibility?: 'secret' | 'organization';
  'organization-access'?: AccessChange;
  'allow-member-token-management'?: boolean;
  'allow-team-token-management'?: boolean;
}

/** A team the caller may see, with the caller's standing in its organization. */
export interface TeamAccess {
  row: Team;
  standing: OrganizationStanding;
  context: OrganizationContext;
  /** Its members and token holder, when they were read along with it (one statement: team-read-for-caller.ts). */
  view?: TeamView;
  /** The row as that statement read it: a PATCH writes only if the team is still stored so. */
  read?: TeamRow;
}

/** A team and the related records asked for. */
export interface TeamResult {
  team: TeamDetails;
  related: TeamRelated;
}

/** A page of teams and the related records asked for, across the page. */
export interface TeamList extends Page<TeamDetails> {
  related: TeamRelated;
}

const ATTRIBUTE = '/data/attributes';

/** The token-management flag under either spelling clients send (`allow-team-token-management` is an input alias). */
function memberTokenManagement(input: TeamAttributesInput): boolean | undefined {
  return input['allow-member-token-management'] ?? input['allow-team-token-management'];
}

function checkName(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw Errors.invalidName(`${ATTRIBUTE}/name`, problem);
}

function rejectViolations(result: ReturnType<typeof mergeOrganizationAccess>): OrganizationAccess {
  const violation = result.violations[0];
  if (violation) throw Errors.organizationAccessRuleBroken(violation.key, violation.detail);
  return result.access;
}


export class TeamsService {
  /** New teams are written in batches with the creations that arrive alongside them (team-inserts.ts). */
  private readonly inserts: TeamInserts;

  constructor(
    private readonly teams: TeamsRepository,
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
    private readonly gate: OrganizationGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {
    this.inserts = new TeamInserts(teams, auditTrail);
  }

  async list(context: OrganizationContext, options: { q?: string; names?: string[]; page: PageRequest; include: Set<TeamInclude> }): Promise<TeamList> {
    const { standing } = context;
    const { teams, total } = await this.teams.list(
      {
        organizationName: context.organization.name,
        visibleTo: seesAllTeams(standing) ? undefined : { teamIds: [...standing.teamIds] },
        // Without the teams entitlement an organization has only its owners team, except for owners,
        // who still list (and delete) the teams it hides, so a downgrade loses nothing.
        ownersOnly: !context.featureSet.teams && !standing.isOwner,
        q: options.q,
        names: options.names,
      },
      options.page.offset,
      options.page.size,
    );
    const views = await this.views(teams);
    return {
      ...pageOf(
        options.page,
        views.map((view) => ({ view, permissions: teamPermissions(standing, view.team) })),
        total,
      ),
      related: await this.related(views, options.include, standing),
    };
  }

  async show(found: TeamAccess, include: Set<TeamInclude>): Promise<TeamResult> {
    const { row, standing, view } = found;
    return this.result(row, standing, include, view);
  }

  async create(context: OrganizationContext, input: TeamAttributesInput & { name: string }, include: Set<TeamInclude>): Promise<TeamResult> {
    // Granting any right on create is changing organization access; all-false is no grant.
    const grants = Object.values(input['organization-access'] ?? {}).some((value) => value === true);
    requireAccess(context.standing, 'organization', grants ? 'create-team-with-access' : 'create-team', { name: context.organization.name });
    checkName(input.name);
    const access = rejectViolations(mergeOrganizationAccess(noAccess(), input['organization-access'] ?? {}));
    const now = nowIso();
    const row: TeamRow = {
      id: newId('team'),
      organization_name: context.organization.name,
      name: input.name,
      name_lower: nameKey(input.name),
      sso_team_id: input['sso-team-id'] ?? null,
      visibility: input.visibility ?? 'secret',
      allow_member_token_management: memberTokenManagement(input) === false ? 0 : 1,
      organization_access: JSON.stringify(access),
      is_owners: 0,
      service_account_user_id: null,
      created_at: now,
      updated_at: now,
    };
    const team = teamFromRow(row);
    if ((await this.inserts.insert(row, auditRow(teamCreated(context.standing.principal, team)))) === 'name-taken') throw Errors.nameTaken();
    // A team that did not exist a moment ago has no members and no token: nothing to look up.
    return this.result(team, context.standing, include, { team, members: [], invitedMembershipIds: [], serviceAccountUserId: null });
  }

  /**
   * Changes only what was sent; each sent attribute needs its own right (organization-access needs
   * `manage-organization-access`, the others `manage-teams`). The rights, the rules and the merge of
   * organization-access are applied to the row as stored under the write's lock, so concurrent updates
   * never lose one another's keys and the answer shows what was stored. `found` is the route's
   * `team` lookup.
   */
  async update(found: TeamAccess, input: TeamAttributesInput, include: Set<TeamInclude>): Promise<TeamResult> {
    const { row, standing } = found;
    let stored: Team | undefined;
    try {
      stored = found.read && (await this.updateAsRead(found.read, standing, input));
      stored ??= await this.teams.modify(
        row.id,
        (current) => this.changesFor(standing, current, input),
        async (trx, before, after) => {
          const entry = teamUpdated(standing.principal, before, after);
          if (entry) await this.auditTrail.record(trx, entry);
        },
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    if (!stored) throw Errors.teamNotFound();
    // Members and token holder as the lookup read them: an update of the team's attributes changes neither.
    const view = found.view && { ...found.view, team: stored };
    return this.result(stored, standing, include, view);
  }

  /**
   * The update decided on the row the lookup read, written only if the team is still stored so: one
   * statement with its audit entry (issue 39). Undefined when it changed meanwhile: `modify` then decides
   * again under the lock, as before.
   */
  private async updateAsRead(read: TeamRow, standing: OrganizationStanding, input: TeamAttributesInput): Promise<Team | undefined> {
    const before = teamFromRow(read);
    const changes = this.changesFor(standing, before, input);
    if (Object.keys(changes).length === 0) return before;
    const entry = teamUpdated(standing.principal, before, teamFromRow({ ...read, ...changes }));
    return this.teams.updateIfUnchanged(read, changes, entry && auditRow(entry));
  }

  /** What an update writes to the team as it is stored now, or the reason it is refused. */
  private changesFor(standing: OrganizationStanding, row: Team, input: TeamAttributesInput): TeamChanges {
    const isOwners = row.isOwners;
    const changes: TeamChanges = {};
    const tokenSetting = memberTokenManagement(input);

    // Asked again of the row as stored now: a concurrent change of visibility may have hidden the team.
    requireAccess(standing, 'team', 'read', row);
    const wantsTeamSettings =
      input.name !== undefined || input['sso-team-id'] !== undefined || input.visibility !== undefined || tokenSetting !== undefined;
    const wantsAccess = input['organization-access'] !== undefined;
    if (wantsTeamSettings) requireAccess(standing, 'team', 'update-settings', row);
    if (wantsAccess) requireAccess(standing, 'team', 'update-access', row);

    if (input.name !== undefined && input.name !== row.name) {
      checkName(input.name);
      if (isOwners) throw Errors.ownersTeamCannotBeRenamed();
      changes.name = input.name;
      changes.name_lower = nameKey(input.name);
    }
    if (input['sso-team-id'] !== undefined) changes.sso_team_id = input['sso-team-id'];
    if (input.visibility !== undefined) changes.visibility = input.visibility;
    if (tokenSetting !== undefined) changes.allow_member_token_management = tokenSetting ? 1 : 0;
    if (wantsAccess) {
      // The owners team's rule comes first: its pointer names the key the caller tried to turn off, rather than
      // a consistency rule that turning it off would break.
      const turnedOff = isOwners ? Object.entries(input['organization-access']!).find(([, value]) => value === false) : undefined;
      if (turnedOff) {
        throw Errors.ownersTeamAccessFixed(turnedOff[0]);
      }
      changes.organization_access = JSON.stringify(rejectViolations(mergeOrganizationAccess(row.access, input['organization-access']!)));
    }
    if (Object.keys(changes).length > 0) changes.updated_at = nowIso();
    return changes;
  }

  async delete(found: TeamAccess): Promise<void> {
    const { row, standing } = found;
    requireAccess(standing, 'team', 'delete', row);
    await this.teams.delete(row.id, (trx) => this.auditTrail.record(trx, teamDeleted(standing.principal, row)));
  }

  /**
   * The `team` lookup: the team and the caller's standing, or 404 when it does not exist or the caller may not see it.
   * `readAhead`: the read the request's authentication took along with its token (team-read-with-credential.ts).
   */
  async visibleTeam(principal: Principal, teamId: string, readAhead?: TeamReadAhead): Promise<TeamAccess> {
    const reader = teamReaderOf(principal);
    if (reader) return this.visibleTeamInOneRead(principal, reader, teamId, readAhead?.teamId === teamId ? readAhead : undefined);
    const row = await this.teams.findById(teamId);
    if (!row) throw Errors.teamNotFound();
    // The edition's rule is the table's too: owners still see the teams an edition without teams hides.
    const context = await this.gate.enterFor(principal, row.organizationName, 'team', 'read', row);
    return { row, standing: context.standing, context };
  }

  /** `visibleTeam` in one statement: the team, its organization, the caller's standing and the team's view. */
  private async visibleTeamInOneRead(principal: Principal, reader: TeamReader, teamId: string, readAhead: TeamReadAhead | undefined): Promise<TeamAccess> {
    const read = readAhead ? readAhead.team : await this.teams.readForCaller(teamId, reader, nowIso());
    if (!read) throw Errors.teamNotFound();
    const { team, stored, organization, membership, members, invitedMembershipIds, holdsToken } = read;
    const context = this.gate.enterWithMembership(principal, organization, membership, 'team', 'read', team);
    const view: TeamView = { team, members, invitedMembershipIds, serviceAccountUserId: holdsToken ? team.serviceAccountUserId : null };
    return { row: team, standing: context.standing, context, view, read: stored };
  }

  private async result(team: Team, standing: OrganizationStanding, include: Set<TeamInclude>, known?: TeamView): Promise<TeamResult> {
    const view = known ?? (await this.views([team]))[0]!;
    return {
      team: { view, permissions: teamPermissions(standing, team) },
      related: await this.related([view], include, standing),
    };
  }

  /** Members and token holders of a page of teams, in two queries whatever the page size. */
  private async views(teams: Team[]): Promise<TeamView[]> {
    const ids = teams.map((team) => team.id);
    const [memberships, withTokens] = await Promise.all([this.teams.memberships(ids), this.teams.teamsWithTokens(ids, nowIso())]);
    return teams.map((team) => ({
      team,
      members: memberships.filter((member) => member.teamId === team.id && member.active).map(({ active: _, ...member }) => member),
      invitedMembershipIds: memberships.filter((member) => member.teamId === team.id && !member.active).map((member) => member.membershipId),
      serviceAccountUserId: withTokens.has(team.id) ? team.serviceAccountUserId : null,
    }));
  }

  private async related(views: TeamView[], include: Set<TeamInclude>, standing: OrganizationStanding): Promise<TeamRelated> {
    const related: TeamRelated = { users: [], emailsVisible: standing.isMember, memberships: [] };
    // Both includes need member users: each user is read once per request.
    const usersRead = new Map<string, UserRow>();
    const usersByIds = async (ids: string[]): Promise<UserRow[]> => {
      const missing = ids.filter((id) => !usersRead.has(id));
      if (missing.length > 0) for (const user of await this.users.findManyByIds(missing)) usersRead.set(user.id, user);
      return ids.flatMap((id) => usersRead.get(id) ?? []);
    };
    if (include.has('users')) {
      const ids = new Set<string>();
      for (const view of views) {
        // Not the service account: it is not listed among the team's users (teams.serializer.ts).
        for (const member of view.members) ids.add(member.userId);
      }
      const users = await usersByIds([...ids]);
      users.sort((a, b) => a.username_lower.localeCompare(b.username_lower));
      related.users = users;
    }
    if (include.has('organization-memberships')) {
      const membershipIds = [...new Set(views.flatMap((view) => [...view.members.map((member) => member.membershipId), ...view.invitedMembershipIds]))];
      const [memberships, teamIdsByMembership] = await Promise.all([
        this.memberships.findManyByIds(membershipIds),
        this.memberships.teamIdsOf(membershipIds),
      ]);
      const users = new Map((await usersByIds(memberships.map((m) => m.user_id))).map((user) => [user.id, user]));
      const teamRows = await this.teams.findManyByIds([...new Set([...teamIdsByMembership.values()].flat())]);
      const visibleTeamIds = new Set(teamRows.filter((row) => allows(standing, 'team', 'read', row)).map((row) => row.id));
      const ownersId = teamRows.find((row) => row.isOwners)?.id;
      for (const membership of memberships) {
        const allTeamIds = teamIdsByMembership.get(membership.id) ?? [];
        const teamIds = allTeamIds.filter((id) => visibleTeamIds.has(id));
        // Whether it is an owner (from all its teams, secret ones too) decides who may remove it.
        const permissions = membershipPermissions(standing, { inOwnersTeam: ownersId !== undefined && allTeamIds.includes(ownersId) });
        related.memberships.push({ membership, user: users.get(membership.user_id), teamIds, permissions });
      }
    }
    return related;
  }

  /** Which of these teams the caller may see: a membership's other teams must not reveal secret ones. */
  async visibleTeamIdsAmong(standing: OrganizationStanding, teamIds: string[]): Promise<Set<string>> {
    const rows = await this.teams.findManyByIds(teamIds);
    return new Set(rows.filter((row) => allows(standing, 'team', 'read', row)).map((row) => row.id));
  }

}

/**
 * Whose teams the one-statement read takes along for this caller (team-read-for-caller.ts); undefined for a
 * kind it does not know, which takes the gate's reads instead. Site admins and the organization token need
 * no rows: a team id that matches no team reads none.
 */
function teamReaderOf(principal: Principal): TeamReader | undefined {
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', userId: principal.userId };
    case 'team':
      return { kind: 'team', teamId: principal.teamId };
    case 'site-admin':
    case 'organization':
      return { kind: 'team', teamId: '' };
    default:
      return undefined;
  }
}
