import { allows, requireAccess } from '../access/require-access.js';
import { mergeProjectGrant, projectGrantOfRow, type ProjectGrantInput } from '../access/project-access.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import type { ProjectGate } from '../access/project-gate.js';
import { Errors } from '../core/errors.js';
import { slicePage, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { isUniqueViolation } from '../db/database.js';
import type { TeamProjectsTable } from '../db/schema.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import type { Team } from '../teams/team.js';
import type { TeamsRepository } from '../teams/teams.repository.js';
import { teamProjectAccessChanged, teamProjectAccessGranted, teamProjectAccessRevoked } from './team-project-access-audit.js';
import { projectGrantColumns, type TeamProjectsRepository } from './team-projects.repository.js';

/** The `team-project-access` lookup's proof: the row, its team, and the caller's context with the project attached. */
export interface VisibleTeamProjectAccess {
  row: TeamProjectsTable;
  team: Team;
  context: OrganizationContext;
}

/**
 * HCP's project team access (`/team-projects`): a team's access to one project, inherited by the project's
 * workspaces. Members see the access of teams they can see on projects they can read; `manage-projects` and the
 * project's `teams: manage` change it (access-table.ts's `team-project` rows). Every change is on the audit trail.
 */
export class TeamProjectsService {
  constructor(
    private readonly rows: TeamProjectsRepository,
    private readonly teams: TeamsRepository,
    private readonly gate: OrganizationGate,
    private readonly projectGate: ProjectGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async visible(principal: Principal, id: string): Promise<VisibleTeamProjectAccess> {
    const row = await this.rows.findById(id);
    const team = row ? await this.teams.findById(row.team_id) : undefined;
    if (!row || !team) throw Errors.teamProjectAccessNotFound();
    const organization = await this.gate.contextOf(principal, row.organization_name);
    const context = organization && (await this.projectGate.attach(organization, row.project_id));
    requireAccess(context?.standing, 'team-project', 'read', { team });
    return { row, team, context: context! };
  }

  /** HCP lists by `filter[project][id]`; `filter[team][id]` (the console's team page) lists a team's. */
  async list(principal: Principal, filter: { projectId?: string; teamId?: string }, page: PageRequest): Promise<Page<TeamProjectsTable>> {
    if (filter.projectId) {
      const { context } = await this.projectGate.enter(principal, filter.projectId);
      const rows = await this.rows.ofProject(filter.projectId);
      const teams = new Map((await this.teams.findManyByIds(rows.map((row) => row.team_id))).map((team) => [team.id, team]));
      return slicePage(rows.filter((row) => { const team = teams.get(row.team_id); return team !== undefined && allows(context.standing, 'team-project', 'read', { team }); }), page);
    }
    if (filter.teamId) {
      const team = await this.teams.findById(filter.teamId);
      if (!team) throw Errors.teamNotFound();
      const context = await this.gate.enterFor(principal, team.organizationName, 'team', 'read', team);
      const { standingOf } = await this.projectGate.standingsIn(context);
      const rows = await this.rows.ofTeam(team.id);
      return slicePage(rows.filter((row) => allows(standingOf(row.project_id), 'team-project', 'read', { team })), page);
    }
    throw Errors.teamProjectAccessFilterMissing();
  }

  async create(principal: Principal, input: ProjectGrantInput, teamId: string | undefined, projectId: string | undefined): Promise<TeamProjectsTable> {
    if (!projectId) throw Errors.teamProjectAccessRelationshipMissing('project');
    if (!teamId) throw Errors.teamProjectAccessRelationshipMissing('team');
    const { project, context } = await this.projectGate.enter(principal, projectId);
    requireAccess(context.standing, 'project', 'manage-team-access', {});
    const team = await this.teams.findById(teamId);
    if (!team || team.organizationName !== project.organization_name || !allows(context.standing, 'team', 'read', team)) throw Errors.teamNotFound();
    const { grant, problem } = mergeProjectGrant(undefined, input);
    if (!grant) throw Errors.invalidProjectAttribute(problem!.attribute, problem!.detail);
    const now = nowIso();
    const row: TeamProjectsTable = {
      id: newId('tprj'),
      organization_name: project.organization_name,
      team_id: team.id,
      project_id: project.id,
      ...projectGrantColumns(grant),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.auditTrail.transaction(async (trx) => {
        await this.rows.insert(row, trx);
        return { result: undefined, entries: [teamProjectAccessGranted(principal, row)] };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.teamAccessTaken();
      throw error;
    }
    return row;
  }

  async update(found: VisibleTeamProjectAccess, input: ProjectGrantInput): Promise<TeamProjectsTable> {
    const { row, team, context } = found;
    requireAccess(context.standing, 'team-project', 'manage', { team });
    const { grant, problem } = mergeProjectGrant(projectGrantOfRow(row), input);
    if (!grant) throw Errors.invalidProjectAttribute(problem!.attribute, problem!.detail);
    const updated = await this.auditTrail.transaction(async (trx) => {
      const after = await this.rows.update(row.id, grant, nowIso(), trx);
      const changed = after && teamProjectAccessChanged(context.standing.principal, row, after);
      return { result: after, entries: changed ? [changed] : [] };
    });
    if (!updated) throw Errors.teamProjectAccessNotFound();
    return updated;
  }

  async delete(found: VisibleTeamProjectAccess): Promise<void> {
    const { row, team, context } = found;
    requireAccess(context.standing, 'team-project', 'manage', { team });
    await this.auditTrail.transaction(async (trx) => {
      const deleted = await this.rows.delete(row.id, trx);
      return { result: undefined, entries: deleted ? [teamProjectAccessRevoked(context.standing.principal, row)] : [] };
    });
  }
}
