import { isRequiredApprovals, MAX_REQUIRED_APPROVALS } from '../shared/override-rule.js';
import type { Kysely } from 'kysely';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/database.js';
import type { Database, TaskStageName } from '../db/schema.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import type { WorkspaceContext, WorkspaceGate } from '../access/workspace-gate.js';
import { enforcementLevelOrProblem, resolveStages, workspaceLimitProblem, type EnforcementLevel } from './run-task-rules.js';
import type { TasksRepository } from './tasks.repository.js';
import type { WorkspaceTaskChanges, WorkspaceTasksRepository } from './workspace-tasks.repository.js';
import type { WorkspaceTask } from './workspace-task.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { workspaceTaskCreated, workspaceTaskDeleted, workspaceTaskUpdated } from './task-audit.js';

/** An attachment the caller may see, with the caller's standing in the workspace's organization. */
export interface VisibleWorkspaceTask {
  row: WorkspaceTask;
  standing: OrganizationStanding;
}

export interface WorkspaceTaskAttributesInput {
  'enforcement-level'?: string;
  stages?: string[];
  stage?: string;
  /** How many distinct people must override a failed mandatory result of this task (default 1). */
  'required-approvals'?: number;
}

/** At most this many approvers: a bound on a number people must reach, not a product limit. */
function approvalsOrThrow(value: number): number {
  if (!isRequiredApprovals(value)) throw Errors.requiredApprovalsInvalid(MAX_REQUIRED_APPROVALS);
  return value;
}

const TASK_POINTER = '/data/relationships/task/data/id';

function stagesOrThrow(input: WorkspaceTaskAttributesInput, fallback?: WorkspaceTask): TaskStageName[] {
  const result = resolveStages(input, fallback?.stages);
  if ('problem' in result) throw Errors.invalidTaskAttribute(result.pointer, result.problem);
  return result.stages;
}

function enforcementOrThrow(level: string): EnforcementLevel {
  const checked = enforcementLevelOrProblem(level);
  if ('problem' in checked) throw Errors.invalidTaskAttribute('enforcement-level', checked.problem);
  return checked.level;
}

/** Run tasks attached to a workspace (type `workspace-tasks`). */
export class WorkspaceTasksService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly workspaceTasks: WorkspaceTasksRepository,
    private readonly tasks: TasksRepository,
    private readonly workspaceGate: WorkspaceGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async list(found: WorkspaceContext, page: PageRequest): Promise<Page<WorkspaceTask>> {
    const { workspace } = found;
    const { rows, total } = await this.workspaceTasks.list(workspace.id, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  async create(found: WorkspaceContext, input: WorkspaceTaskAttributesInput, taskId: string | undefined): Promise<WorkspaceTask> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'attach-run-task', {});
    if (input['enforcement-level'] === undefined) throw Errors.enforcementLevelRequired();
    const enforcement = enforcementOrThrow(input['enforcement-level']);
    const stages = stagesOrThrow(input);
    if (taskId === undefined) throw Errors.runTaskToAttachRequired();
    const task = await this.tasks.findById(taskId);
    if (!task || task.organization_name !== workspace.organization_name) throw Errors.runTaskToAttachNotFound(taskId);

    const now = nowIso();
    const row: WorkspaceTask = {
      id: newId('wstask'),
      workspace_id: workspace.id,
      task_id: task.id,
      enforcement_level: enforcement,
      stages,
      required_approvals: input['required-approvals'] === undefined ? 1 : approvalsOrThrow(input['required-approvals']),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.workspaceTasks.lockTask(trx, task.id);
        const problem = workspaceLimitProblem(context.featureSet, await this.workspaceTasks.countWorkspacesOf(trx, task.id));
        if (problem) throw Errors.workspaceTaskLimit(problem);
        await this.workspaceTasks.insert(trx, row);
        await this.auditTrail.record(trx, workspaceTaskCreated(context.standing.principal, workspace.organization_name, row));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.runTaskAlreadyAttached();
      // The task or the workspace was deleted meanwhile.
      if (isForeignKeyViolation(error)) throw Errors.runTaskToAttachNotFound(taskId);
      throw error;
    }
    return row;
  }

  /**
   * Changes only what was sent; sending neither `stages` nor `stage` keeps the stages. Decided on the row as
   * stored under the write's lock, so the answer shows what was stored. `found` is the route's
   * `workspace-task` lookup.
   */
  async update(found: VisibleWorkspaceTask, input: WorkspaceTaskAttributesInput): Promise<WorkspaceTask> {
    const { row, standing } = found;
    requireAccess(standing, 'workspace', 'attach-run-task', {});
    const stored = await this.workspaceTasks.modify(row.id, (current) => {
      const changes: WorkspaceTaskChanges = {};
      if (input['enforcement-level'] !== undefined) changes.enforcement_level = enforcementOrThrow(input['enforcement-level']);
      if (input.stages !== undefined || input.stage !== undefined) changes.stages = stagesOrThrow(input, current);
      if (input['required-approvals'] !== undefined) changes.required_approvals = approvalsOrThrow(input['required-approvals']);
      if (Object.keys(changes).length > 0) changes.updated_at = nowIso();
      return changes;
    }, async (trx, before, after) => {
      const entry = workspaceTaskUpdated(standing.principal, standing.organizationName, before, after);
      if (entry) await this.auditTrail.record(trx, entry);
    });
    if (!stored) throw Errors.workspaceTaskNotFound();
    return stored;
  }

  async delete(found: VisibleWorkspaceTask): Promise<void> {
    const { row, standing } = found;
    requireAccess(standing, 'workspace', 'attach-run-task', {});
    await this.auditTrail.transaction(async (trx) => {
      const deleted = await this.workspaceTasks.delete(row.id, trx);
      return { result: undefined, entries: deleted ? [workspaceTaskDeleted(standing.principal, standing.organizationName, row)] : [] };
    });
  }

  /** The `workspace-task` lookup: the attachment, in a workspace the caller may read. */
  async visible(principal: Principal, workspaceId: string, id: string): Promise<VisibleWorkspaceTask> {
    const { workspace, context } = await this.workspaceGate.enter(principal, workspaceId);
    const row = await this.workspaceTasks.find(workspace.id, id);
    if (!row) throw Errors.workspaceTaskNotFound();
    return { row, standing: context.standing };
  }
}
