import { allows, requireAccess } from '../access/require-access.js';
import { mergeGrant, grantOfRow, type GrantInput } from '../access/workspace-access.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import type { WorkspaceGate } from '../access/workspace-gate.js';
import { Errors } from '../core/errors.js';
import { slicePage, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { isUniqueViolation } from '../db/database.js';
import type { TeamWorkspacesTable } from '../db/schema.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import type { Team } from '../teams/team.js';
import type { TeamsRepository } from '../teams/teams.repository.js';
import { teamAccessChanged, teamAccessGranted, teamAccessRevoked } from './team-access-audit.js';
import { grantColumns, type TeamWorkspacesRepository } from './team-workspaces.repository.js';

/** The `team-access` lookup's proof: the row, its team, and the caller's context with the workspace attached. */
export interface VisibleTeamAccess {
  row: TeamWorkspacesTable;
  team: Team;
  context: OrganizationContext;
}

export interface TeamAccessFilter {
  workspaceId?: string;
  teamId?: string;
}

/**
 * HCP's team access (`/team-workspaces`): a team's access to one workspace. Members see the access of teams
 * they can see on workspaces they can read; the workspace's admins and `manage-workspaces` change it (the
 * access table's `workspace manage-team-access` and `team-workspace` rows). Every change is on the audit trail.
 */
export class TeamAccessService {
  constructor(
    private readonly rows: TeamWorkspacesRepository,
    private readonly teams: TeamsRepository,
    private readonly gate: OrganizationGate,
    private readonly workspaceGate: WorkspaceGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  /** The `team-access` lookup: 404 when missing, or when the caller cannot read its workspace or see its team. */
  async visible(principal: Principal, id: string): Promise<VisibleTeamAccess> {
    const row = await this.rows.findById(id);
    const team = row ? await this.teams.findById(row.team_id) : undefined;
    if (!row || !team) throw Errors.teamAccessNotFound();
    const organization = await this.gate.contextOf(principal, row.organization_name);
    const context = organization && (await this.workspaceGate.attach(organization, row.workspace_id));
    requireAccess(context?.standing, 'team-workspace', 'read', { team });
    return { row, team, context: context! };
  }

  async list(principal: Principal, filter: TeamAccessFilter, page: PageRequest): Promise<Page<TeamWorkspacesTable>> {
    if (filter.workspaceId) {
      const { context } = await this.workspaceGate.enter(principal, filter.workspaceId);
      const rows = await this.rows.ofWorkspace(filter.workspaceId);
      const teams = new Map((await this.teams.findManyByIds(rows.map((row) => row.team_id))).map((team) => [team.id, team]));
      return slicePage(rows.filter((row) => { const team = teams.get(row.team_id); return team !== undefined && allows(context.standing, 'team-workspace', 'read', { team }); }), page);
    }
    if (filter.teamId) {
      const team = await this.teams.findById(filter.teamId);
      if (!team) throw Errors.teamNotFound();
      const context = await this.gate.enterFor(principal, team.organizationName, 'team', 'read', team);
      const { standingOf } = await this.workspaceGate.standingsIn(context);
      const rows = await this.rows.ofTeam(team.id);
      return slicePage(rows.filter((row) => allows(standingOf(row.workspace_id), 'team-workspace', 'read', { team })), page);
    }
    throw Errors.teamAccessFilterMissing();
  }

  async create(principal: Principal, input: GrantInput, teamId: string | undefined, workspaceId: string | undefined): Promise<TeamWorkspacesTable> {
    if (!workspaceId) throw Errors.teamAccessRelationshipMissing('workspace');
    if (!teamId) throw Errors.teamAccessRelationshipMissing('team');
    const { workspace, context } = await this.workspaceGate.enter(principal, workspaceId);
    requireAccess(context.standing, 'workspace', 'manage-team-access', {});
    const team = await this.teams.findById(teamId);
    if (!team || team.organizationName !== workspace.organization_name || !allows(context.standing, 'team', 'read', team)) throw Errors.teamNotFound();
    const { grant, problem } = mergeGrant(undefined, input);
    if (!grant) throw Errors.invalidTeamAccess(problem!.attribute, problem!.detail);
    const now = nowIso();
    const row: TeamWorkspacesTable = {
      id: newId('tws'),
      organization_name: workspace.organization_name,
      team_id: team.id,
      workspace_id: workspace.id,
      ...grantColumns(grant),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.auditTrail.transaction(async (trx) => {
        await this.rows.insert(row, trx);
        return { result: undefined, entries: [teamAccessGranted(principal, row)] };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.teamAccessTaken();
      throw error;
    }
    return row;
  }

  /** Changes only what was sent: a fixed level sets every key; custom keys only with `custom` (422 otherwise). */
  async update(found: VisibleTeamAccess, input: GrantInput): Promise<TeamWorkspacesTable> {
    const { row, team, context } = found;
    requireAccess(context.standing, 'team-workspace', 'manage', { team });
    const { grant, problem } = mergeGrant(grantOfRow(row), input);
    if (!grant) throw Errors.invalidTeamAccess(problem!.attribute, problem!.detail);
    const updated = await this.auditTrail.transaction(async (trx) => {
      const after = await this.rows.update(row.id, grant, nowIso(), trx);
      const changed = after && teamAccessChanged(context.standing.principal, row, after);
      return { result: after, entries: changed ? [changed] : [] };
    });
    if (!updated) throw Errors.teamAccessNotFound();
    return updated;
  }

  async delete(found: VisibleTeamAccess): Promise<void> {
    const { row, team, context } = found;
    requireAccess(context.standing, 'team-workspace', 'manage', { team });
    await this.auditTrail.transaction(async (trx) => {
      const deleted = await this.rows.delete(row.id, trx);
      return { result: undefined, entries: deleted ? [teamAccessRevoked(context.standing.principal, row)] : [] };
    });
  }
}
