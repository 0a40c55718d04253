import type { Kysely } from 'kysely';
import { allows, requireAccess } from '../access/require-access.js';
import type { OrganizationContext } from '../access/organization-gate.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import type { ProjectContext, ProjectGate } from '../access/project-gate.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { isUniqueViolation } from '../db/database.js';
import type { Database, ProjectsTable } from '../db/schema.js';
import { ensureDefaultProject } from './default-project.js';
import { decideProjectExecution, isAutoDestroyDuration, projectNameProblem, type ProjectExecutionInput } from './project.js';
import type { ProjectListOptions, ProjectsRepository } from './projects.repository.js';

/** A project with what its document shows: counts, the organization's default mode, the caller's standing in it. */
export interface ProjectView {
  project: ProjectsTable;
  standing: OrganizationStanding;
  organizationMode: string;
  workspaceCount: number;
  teamCount: number;
}

export interface ProjectInput extends ProjectExecutionInput {
  name?: unknown;
  description?: unknown;
  'auto-destroy-activity-duration'?: unknown;
}

/** What a project needs to know of an agent pool to name it (the agent pools domain answers, wired in services.ts). */
export interface ProjectAgentPools {
  poolFor(poolId: string): Promise<{ organizationName: string } | undefined>;
}

/**
 * HCP's projects (issue 36): every organization has a default project, every workspace is in one, teams are
 * granted access per project (src/teamaccess/team-projects.service.ts) and its workspaces inherit it. Owners and
 * `manage-projects` create and manage all projects; `read-projects` reads all; a team's access reads and manages
 * the projects it names (access-table.ts's `project` rows).
 */
export class ProjectsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly projects: ProjectsRepository,
    private readonly gate: ProjectGate,
    private readonly agentPools: ProjectAgentPools,
  ) {}

  /** The `project` lookup. */
  visible(principal: Principal, id: string): Promise<ProjectContext> {
    return this.gate.enter(principal, id);
  }

  async list(found: OrganizationContext, page: PageRequest, options: Omit<ProjectListOptions, 'ids'>): Promise<Page<ProjectView>> {
    await ensureDefaultProject(this.db, found.organization.name, nowIso());
    const { grantedIds, standingOf } = await this.gate.standingsIn(found);
    const ids = allows(found.standing, 'project', 'read', {}) ? undefined : grantedIds;
    const { rows, total } = await this.projects.list(found.organization.name, page.offset, page.size, { ...options, ids });
    return pageOf(page, await this.views(found, rows, standingOf), total);
  }

  async show(found: ProjectContext): Promise<ProjectView> {
    return (await this.views(found.context, [found.project], () => found.context.standing))[0]!;
  }

  async create(found: OrganizationContext, input: ProjectInput): Promise<ProjectView> {
    requireAccess(found.standing, 'organization', 'create-project', { name: found.organization.name });
    const problem = projectNameProblem(input.name);
    if (problem) throw Errors.invalidName('/data/attributes/name', problem);
    const name = input.name as string;
    const execution = await this.execution(found, input, undefined);
    const now = nowIso();
    const row: ProjectsTable = {
      id: newId('prj'),
      organization_name: found.organization.name,
      name,
      name_lower: name.toLowerCase(),
      description: typeof input.description === 'string' ? input.description : '',
      auto_destroy_activity_duration: this.duration(input['auto-destroy-activity-duration']) ?? null,
      default_execution_mode: execution.mode,
      default_agent_pool_id: execution.agentPoolId,
      default_of: null,
      created_at: now,
      updated_at: now,
    };
    await this.write(() => this.projects.insert(row));
    const context = await this.gate.attach(found, row.id);
    return (await this.views(context, [row], () => context.standing))[0]!;
  }

  async update(found: ProjectContext, input: ProjectInput): Promise<ProjectView> {
    const { project, context } = found;
    requireAccess(context.standing, 'project', 'update', {});
    const changes: Parameters<ProjectsRepository['update']>[1] = {};
    if (input.name !== undefined && input.name !== project.name) {
      const problem = projectNameProblem(input.name);
      if (problem) throw Errors.invalidName('/data/attributes/name', problem);
      changes.name = input.name as string;
      changes.name_lower = changes.name.toLowerCase();
    }
    if (typeof input.description === 'string') changes.description = input.description;
    const duration = this.duration(input['auto-destroy-activity-duration']);
    if (duration !== undefined) changes.auto_destroy_activity_duration = duration;
    const execution = await this.execution(context, input, { mode: project.default_execution_mode, agentPoolId: project.default_agent_pool_id });
    if (execution.mode !== project.default_execution_mode) changes.default_execution_mode = execution.mode;
    if (execution.agentPoolId !== project.default_agent_pool_id) changes.default_agent_pool_id = execution.agentPoolId;
    if (Object.keys(changes).length > 0) changes.updated_at = nowIso();
    let updated: ProjectsTable | undefined;
    await this.write(async () => { updated = await this.projects.update(project.id, changes); });
    if (!updated) throw Errors.projectNotFound();
    return this.show({ project: updated, context });
  }

  /** HCP refuses to delete a project that still holds workspaces, and the default project always. */
  async delete(found: ProjectContext): Promise<void> {
    requireAccess(found.context.standing, 'project', 'delete', {});
    if (found.project.default_of !== null) throw Errors.defaultProjectCannotBeDeleted();
    const remaining = await this.projects.deleteIfEmpty(found.project.id);
    if (remaining > 0) throw Errors.projectHasWorkspaces(remaining);
  }

  private duration(value: unknown): string | null | undefined {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    if (!isAutoDestroyDuration(value)) throw Errors.invalidProjectAutoDestroyDuration();
    return value;
  }

  private async execution(found: OrganizationContext, input: ProjectInput, current: { mode: string | null; agentPoolId: string | null } | undefined) {
    const { execution, problem } = decideProjectExecution(input, current, found.organization.default_execution_mode ?? 'remote');
    if (!execution) throw Errors.invalidProjectAttribute(problem!.attribute, problem!.detail);
    if (execution.agentPoolId && execution.agentPoolId !== current?.agentPoolId) {
      const pool = await this.agentPools.poolFor(execution.agentPoolId);
      if (!pool || pool.organizationName !== found.organization.name) throw Errors.agentPoolUnknown();
    }
    return execution;
  }

  private async views(found: OrganizationContext, rows: ProjectsTable[], standingOf: (id: string) => OrganizationStanding): Promise<ProjectView[]> {
    const counts = await this.projects.countsOf(rows.map((row) => row.id));
    return rows.map((project) => ({
      project,
      standing: standingOf(project.id),
      organizationMode: found.organization.default_execution_mode ?? 'remote',
      workspaceCount: counts.workspaces.get(project.id) ?? 0,
      teamCount: counts.teams.get(project.id) ?? 0,
    }));
  }

  private async write(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
  }
}
