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
import type { WorkspaceRow, WorkspacesRepository } from './workspaces.repository.js';
import { EXECUTION_MODES, isExecutionMode, type ExecutionMode } from './execution-mode.js';
import { settingsChanges, settingsOnCreate, type WorkspaceSettingsInput } from './workspace-settings.js';

/** A workspace and the caller's standing in its organization (for its permissions). */
export interface WorkspaceView {
  workspace: WorkspaceRow;
  standing: OrganizationStanding;
}

export interface WorkspaceAttributesInput extends WorkspaceSettingsInput {
  name: string;
  'auto-apply'?: boolean;
  description?: string | null;
  'working-directory'?: string | null;
  'execution-mode'?: string;
  /** Distinct people whose overrides a stage of its runs needs at least (1..10, default 1). */
  'required-approvals'?: number;
  /** Where more than one approval is needed, the run's author may not give one (default true). */
  'prevent-self-approval'?: boolean;
}

/** A PATCH: only the attributes sent change. */
export type WorkspaceUpdateInput = Partial<WorkspaceAttributesInput>;

function requiredApprovalsInput(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!isRequiredApprovals(value)) throw Errors.requiredApprovalsInvalid(MAX_REQUIRED_APPROVALS);
  return value;
}

function executionModeInput(value: string | undefined): ExecutionMode | undefined {
  if (value === undefined) return undefined;
  if (!isExecutionMode(value)) throw Errors.invalidExecutionMode(EXECUTION_MODES);
  return value;
}

/** Workspaces: create, show by id or name, list, update, delete with everything in them. */
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly gate: OrganizationGate,
    private readonly workspaceGate: WorkspaceGate,
  ) {}

  async create(found: OrganizationContext, input: WorkspaceAttributesInput): Promise<WorkspaceView> {
    const { organization, standing } = found;
    requireAccess(standing, 'organization', 'create-workspace', { name: organization.name });
    const problem = nameProblem(input.name);
    if (problem) throw Errors.invalidName('/data/attributes/name', problem);
    const executionMode = executionModeInput(input['execution-mode']) ?? 'remote';
    const requiredApprovals = requiredApprovalsInput(input['required-approvals']) ?? 1;
    const now = nowIso();
    const row = {
      id: newId('ws'),
      organization_name: organization.name,
      name: input.name,
      name_lower: nameKey(input.name),
      description: input.description ?? null,
      auto_apply: input['auto-apply'] ? (1 as const) : (0 as const),
      working_directory: input['working-directory'] ?? '',
      execution_mode: executionMode,
      required_approvals: requiredApprovals,
      prevent_self_approval: input['prevent-self-approval'] === false ? (0 as const) : (1 as const),
      created_at: now,
      updated_at: now,
      current_configuration_version_id: null,
      ...settingsOnCreate(input),
    };
    try {
      await this.workspaces.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return { workspace: row, standing };
  }

  /** The lookup of a workspace named by id: it exists and the caller may read it. */
  async visible(principal: Principal, workspaceId: string): Promise<WorkspaceContext> {
    return this.workspaceGate.enter(principal, workspaceId);
  }

  /** The lookup of a workspace named by organization and name (go-tfe's Workspaces.Read and Update). */
  async visibleByName(principal: Principal, organizationName: string, name: string): Promise<WorkspaceContext> {
    const context = await this.gate.enter(principal, organizationName);
    requireAccess(context.standing, 'workspace', 'read', {});
    const workspace = await this.workspaces.findByName(context.organization.name, name);
    if (!workspace) throw Errors.workspaceNotFound();
    return { workspace, context };
  }

  show(found: WorkspaceContext): WorkspaceView {
    return { workspace: found.workspace, standing: found.context.standing };
  }

  /** Members without a read right see an empty list: they may see the organization, not its workspaces. */
  async list(found: OrganizationContext, options: { search?: string; page: PageRequest }): Promise<Page<WorkspaceView>> {
    const { organization, standing } = found;
    if (!allows(standing, 'workspace', 'read', {})) return pageOf(options.page, [], 0);
    const { rows, total } = await this.workspaces.list(
      { organizationName: organization.name, search: options.search },
      options.page.offset,
      options.page.size,
    );
    return pageOf(options.page, rows.map((row) => ({ workspace: row, standing })), total);
  }

  /** Runs already created keep the execution mode they were created in. */
  async update(found: WorkspaceContext, input: WorkspaceUpdateInput): Promise<WorkspaceView> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'manage', {});
    const changes: Parameters<WorkspacesRepository['update']>[1] = settingsChanges(input);
    if (input.name !== undefined) {
      const problem = nameProblem(input.name);
      if (problem) throw Errors.invalidName('/data/attributes/name', problem);
      changes.name = input.name;
      changes.name_lower = nameKey(input.name);
    }
    const executionMode = executionModeInput(input['execution-mode']);
    if (executionMode !== undefined) changes.execution_mode = executionMode;
    const requiredApprovals = requiredApprovalsInput(input['required-approvals']);
    if (requiredApprovals !== undefined) changes.required_approvals = requiredApprovals;
    if (input['prevent-self-approval'] !== undefined) changes.prevent_self_approval = input['prevent-self-approval'] ? 1 : 0;
    if (input['auto-apply'] !== undefined) changes.auto_apply = input['auto-apply'] ? 1 : 0;
    if (input.description !== undefined) changes.description = input.description;
    if (input['working-directory'] !== undefined) changes.working_directory = input['working-directory'] ?? '';
    if (Object.keys(changes).length === 0) return { workspace, standing: context.standing };
    changes.updated_at = nowIso();
    let updated: WorkspaceRow | undefined;
    try {
      updated = await this.workspaces.update(workspace.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    if (!updated) throw Errors.workspaceNotFound();
    return { workspace: updated, standing: context.standing };
  }

  /**
   * Delete and safe-delete are one here: HCP's safe delete refuses a workspace that still manages
   * resources (409), and a Teamstage workspace keeps no state, so it never manages any.
   */
  async delete(found: WorkspaceContext): Promise<void> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'manage', {});
    await this.workspaces.delete(workspace.id);
  }
}
