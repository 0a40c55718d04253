import { isRequiredApprovals, MAX_REQUIRED_APPROVALS } from '../shared/override-rule.js';
import { allows, requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { nameKey, nameProblem } from '../core/team-name.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import type { WorkspaceContext, WorkspaceGate } from '../access/workspace-gate.js';
import type { WorkspaceListFilter, WorkspaceRow, WorkspacesRepository } from './workspaces.repository.js';
import { settingsChanges, settingsOnCreate, type WorkspaceSettingsInput } from './workspace-settings.js';
import { autoDestroyAtInput, decideExecution, type ExecutionInput } from './workspace-execution.js';
import { checkTagNames, resolveTags, type TagReference } from './workspace-tags.service.js';
import type { TagRow, WorkspaceTagsRepository } from './workspace-tags.repository.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { agentPoolAfter, type AgentPoolChecker } from './workspace-agent-pool.js';
import type { ExecutionMode } from './execution-mode.js';
import { projectForNewWorkspace, requireMove, type WorkspaceProjects } from './workspace-project.js';

/** A workspace and the caller's standing in its organization (for its permissions). */
export interface WorkspaceView {
  workspace: WorkspaceRow;
  standing: OrganizationStanding;
  /** How many runs it has had (HCP's `workspace-kpis-runs-count`); left out where no one reads it. */
  runsCount?: number;
}

export interface WorkspaceAttributesInput extends WorkspaceSettingsInput, ExecutionInput {
  name: string;
  'auto-apply'?: boolean;
  description?: string | null;
  'working-directory'?: string | null;
  'auto-destroy-at'?: string | null;
  /** Distinct people whose overrides a stage of its runs needs at least (1..10, default 1). */
  'required-approvals'?: number;
  /** HCP: the agent pool of an agent-mode workspace (workspace-agent-pool.ts). */
  'agent-pool-id'?: string | null;
  /** Where more than one approval is needed, the run's author may not give one (default true). */
  'prevent-self-approval'?: boolean;
}

/** A PATCH: only the attributes sent change. */
export type WorkspaceUpdateInput = Partial<WorkspaceAttributesInput>;

/** The `tags` relationship of a create or update (HCP's), beside the `tag-names` attribute. */
export type TagsRelationship = readonly TagReference[] | undefined;

function requiredApprovalsInput(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!isRequiredApprovals(value)) throw Errors.requiredApprovalsInvalid(MAX_REQUIRED_APPROVALS);
  return value;
}

/** What a create or update says the workspace's tags are: the relationship, else `tag-names`, else nothing. */
function tagReferences(input: WorkspaceSettingsInput, relationship: TagsRelationship): TagReference[] | undefined {
  if (relationship !== undefined) return [...relationship];
  const names = input['tag-names'];
  if (names === undefined) return undefined;
  checkTagNames(names, '/data/attributes/tag-names');
  return names.map((name) => ({ name }));
}

/** Workspaces: create, show by id or name, list, update, delete with everything in them. */
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly gate: OrganizationGate,
    private readonly workspaceGate: WorkspaceGate,
    private readonly db: Kysely<Database>,
    private readonly tags: WorkspaceTagsRepository,
    private readonly agentPools?: AgentPoolChecker,
    private readonly projects?: WorkspaceProjects,
  ) {}

  /** `projectId`: HCP's `project` relationship; without it the workspace lands in the default project. */
  async create(found: OrganizationContext, input: WorkspaceAttributesInput, tagsRelationship?: TagsRelationship, projectId?: string): Promise<WorkspaceView> {
    const { organization, standing } = found;
    const project = this.projects ? await projectForNewWorkspace(this.projects, found, projectId) : undefined;
    if (!this.projects) requireAccess(standing, 'organization', 'create-workspace', { name: organization.name });
    const problem = nameProblem(input.name);
    if (problem) throw Errors.invalidName('/data/attributes/name', problem);
    const execution = decideExecution(input, organization.default_execution_mode ?? 'remote', true)!;
    const autoDestroyAt = autoDestroyAtInput(input['auto-destroy-at']) ?? null;
    const references = tagReferences(input, tagsRelationship);
    const requiredApprovals = requiredApprovalsInput(input['required-approvals']) ?? 1;
    const agentPoolId = await agentPoolAfter(this.agentPools, {
      organizationName: organization.name, mode: execution.mode, current: null, sent: input['agent-pool-id'],
    });
    const now = nowIso();
    const row = {
      id: newId('ws'),
      organization_name: organization.name,
      name: input.name,
      name_lower: nameKey(input.name),
      description: input.description ?? null,
      auto_apply: input['auto-apply'] ? (1 as const) : (0 as const),
      working_directory: input['working-directory'] ?? '',
      execution_mode: execution.mode,
      execution_mode_overwritten: execution.overwritten ? (1 as const) : (0 as const),
      auto_destroy_at: autoDestroyAt,
      locked: 0 as const,
      locked_by_kind: null,
      locked_by_id: null,
      required_approvals: requiredApprovals,
      prevent_self_approval: input['prevent-self-approval'] === false ? (0 as const) : (1 as const),
      created_at: now,
      updated_at: now,
      current_configuration_version_id: null,
      current_run_id: null,
      agent_pool_id: agentPoolId,
      project_id: project ?? null,
      ...settingsOnCreate({ ...input, 'tag-names': [] }),
    };
    let tagged: TagRow[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.workspaces.insert(row, trx);
        if (references === undefined) return;
        tagged = await resolveTags(trx, this.tags, organization.name, references, '/data/relationships/tags');
        await this.tags.replace(trx, row.id, tagged);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    // Its permissions for the caller count their access to its project too (a project's maintainers create workspaces).
    const created = project && !allows(standing, 'workspace', 'manage', {}) ? (await this.workspaceGate.attach(found, row.id)).standing : standing;
    return { workspace: { ...row, tag_names: JSON.stringify(tagged.map((tag) => tag.name)) }, standing: created, runsCount: 0 };
  }

  /** The lookup of a workspace named by id: it exists and the caller may read it. */
  async visible(principal: Principal, workspaceId: string): Promise<WorkspaceContext> {
    return this.workspaceGate.enter(principal, workspaceId);
  }

  /** The lookup of a workspace named by organization and name (go-tfe's Workspaces.Read and Update). */
  async visibleByName(principal: Principal, organizationName: string, name: string): Promise<WorkspaceContext> {
    const organization = await this.gate.enter(principal, organizationName);
    const workspace = await this.workspaces.findByName(organization.organization.name, name);
    if (!workspace) throw Errors.workspaceNotFound();
    // The caller's teams' access to this workspace decides too: missing and unreadable are one 404.
    const context = await this.workspaceGate.attach(organization, workspace.id);
    requireAccess(context.standing, 'workspace', 'read', {});
    return { workspace, context };
  }

  async show(found: WorkspaceContext): Promise<WorkspaceView> {
    const counts = await this.workspaces.runsCounts([found.workspace.id]);
    return { workspace: found.workspace, standing: found.context.standing, runsCount: counts.get(found.workspace.id) ?? 0 };
  }

  /**
   * A read right lists every workspace; otherwise the workspaces the caller's teams have access to (none: an
   * empty list, they may see the organization, not its workspaces). Each shows its `permissions` for the caller.
   */
  async list(found: OrganizationContext, options: { filter: Omit<WorkspaceListFilter, 'organizationName'>; page: PageRequest }): Promise<Page<WorkspaceView>> {
    const { organization, standing } = found;
    const { grantedIds, standingOf } = await this.workspaceGate.standingsIn(found);
    const ids = allows(standing, 'workspace', 'read', {}) ? undefined : grantedIds;
    const { rows, total } = await this.workspaces.list(
      { ...options.filter, organizationName: organization.name, ids },
      options.page.offset,
      options.page.size,
    );
    const counts = await this.workspaces.runsCounts(rows.map((row) => row.id));
    return pageOf(options.page, rows.map((row) => ({ workspace: row, standing: standingOf(row.id), runsCount: counts.get(row.id) ?? 0 })), total);
  }

  /**
   * Workspaces another document relates to, for its `included` (a policy set's `include=workspaces`): those of
   * these ids the caller may read; none for a member without a read right, who sees the ids alone.
   */
  async related(context: OrganizationContext, ids: readonly string[]): Promise<WorkspaceView[]> {
    if (!allows(context.standing, 'workspace', 'read', {})) return [];
    const rows = await this.workspaces.findManyInOrganization(context.organization.name, ids);
    return rows.map((row) => ({ workspace: row, standing: context.standing }));
  }

  /** Runs already created keep the execution mode they were created in. */
  /** `projectId`: HCP's `project` relationship, which moves the workspace to that project. */
  async update(found: WorkspaceContext, input: WorkspaceUpdateInput, tagsRelationship?: TagsRelationship, projectId?: string): Promise<WorkspaceView> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'manage', {});
    const moving = projectId !== undefined && projectId !== workspace.project_id;
    const { 'tag-names': _names, ...settings } = input;
    const changes: Parameters<WorkspacesRepository['update']>[1] = settingsChanges(settings);
    const references = tagReferences(input, tagsRelationship);
    if (input.name !== undefined) {
      const problem = nameProblem(input.name);
      if (problem) throw Errors.invalidName('/data/attributes/name', problem);
      changes.name = input.name;
      changes.name_lower = nameKey(input.name);
    }
    const execution = decideExecution(input, context.organization.default_execution_mode ?? 'remote', false);
    if (execution !== undefined) {
      changes.execution_mode = execution.mode;
      changes.execution_mode_overwritten = execution.overwritten ? 1 : 0;
    }
    const autoDestroyAt = autoDestroyAtInput(input['auto-destroy-at']);
    if (autoDestroyAt !== undefined) changes.auto_destroy_at = autoDestroyAt;
    const agentPoolId = await agentPoolAfter(this.agentPools, {
      organizationName: workspace.organization_name, workspaceId: workspace.id, mode: execution?.mode ?? (workspace.execution_mode as ExecutionMode),
      current: workspace.agent_pool_id ?? null, sent: input['agent-pool-id'],
    });
    if (agentPoolId !== (workspace.agent_pool_id ?? null)) changes.agent_pool_id = agentPoolId;
    const requiredApprovals = requiredApprovalsInput(input['required-approvals']);
    if (requiredApprovals !== undefined) changes.required_approvals = requiredApprovals;
    if (input['prevent-self-approval'] !== undefined) changes.prevent_self_approval = input['prevent-self-approval'] ? 1 : 0;
    if (input['auto-apply'] !== undefined) changes.auto_apply = input['auto-apply'] ? 1 : 0;
    if (input.description !== undefined) changes.description = input.description;
    if (input['working-directory'] !== undefined) changes.working_directory = input['working-directory'] ?? '';
    if (moving && this.projects) {
      await requireMove(this.projects, context, workspace.project_id!, projectId);
      changes.project_id = projectId;
    }
    if (Object.keys(changes).length === 0 && references === undefined) return this.show(found);
    changes.updated_at = nowIso();
    let updated: WorkspaceRow | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.workspaces.update(workspace.id, changes, trx);
        if (references === undefined) return;
        await this.tags.replace(trx, workspace.id, await resolveTags(trx, this.tags, workspace.organization_name, references, '/data/relationships/tags'));
      });
      updated = await this.workspaces.findById(workspace.id);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    if (!updated) throw Errors.workspaceNotFound();
    return this.show({ workspace: updated, context });
  }

  /**
   * HCP's safe delete refuses a workspace that still manages resources (409): a Teamstage workspace keeps no
   * state, so it never manages any; it also refuses a locked workspace, as here.
   */
  async delete(found: WorkspaceContext, options: { safe?: boolean } = {}): Promise<void> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'manage', {});
    if (!options.safe) return this.workspaces.delete(workspace.id);
    // HCP's safe delete also refuses a locked workspace (go-tfe tells it by the word "locked").
    if (!(await this.workspaces.deleteUnlocked(workspace.id)) && (await this.workspaces.findById(workspace.id))) throw Errors.workspaceLockedCannotDelete();
  }
}
