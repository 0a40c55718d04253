import type { Kysely } from 'kysely';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { taskCreated, taskDeleted, taskUpdated } from './task-audit.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { allows, requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { nameKey, nameProblem } from '../core/team-name.js';
import { categoryProblem, descriptionProblem, runTaskLimitProblem, taskUrlProblem } from './run-task-rules.js';
import type { TaskVerifier } from './task-verification.js';
import type { TaskChanges, TaskRow, TasksRepository } from './tasks.repository.js';
import type { WorkspaceTask } from './workspace-task.js';
import type { WorkspaceRow, WorkspacesRepository } from '../workspaces/workspaces.repository.js';

/** go-tfe's RunTaskIncludeOpt values. */
export type TaskInclude = 'workspace-tasks' | 'workspace-tasks.workspace';
export const TASK_INCLUDES: readonly TaskInclude[] = ['workspace-tasks', 'workspace-tasks.workspace'];

/** A run task the caller may see, with the caller's organization context. */
export interface TaskAccess {
  row: TaskRow;
  context: OrganizationContext;
}

/** A run task and the ids of its attachments to workspaces. */
export interface TaskView {
  task: TaskRow;
  attachmentIds: string[];
}

/** What `include=workspace-tasks[.workspace]` asked for: attachments, and the workspaces the caller may read. */
export interface TaskRelated {
  attachments: WorkspaceTask[];
  workspaces: WorkspaceRow[];
  /** Whose standing the workspaces are shown with (their permissions); set whenever `workspaces` is not empty. */
  standing: OrganizationStanding | undefined;
}

interface TaskViews {
  views: TaskView[];
  related: TaskRelated;
}

export interface TaskResult {
  task: TaskView;
  related: TaskRelated;
}

export interface TaskList extends Page<TaskView> {
  related: TaskRelated;
}

export interface TaskAttributesInput {
  name?: string;
  url?: string;
  description?: string | null;
  category?: string;
  'hmac-key'?: string | null;
  enabled?: boolean;
}

const ATTRIBUTE = '/data/attributes';
const NAME_TAKEN = 'Name has already been taken';

function check(problem: string | undefined, key: string): void {
  if (problem) throw Errors.invalidTaskAttribute(key, problem);
}

/** Validates whatever of the attributes was sent. */
function checkAttributes(input: TaskAttributesInput): void {
  if (input.name !== undefined) check(nameProblem(input.name), 'name');
  if (input.url !== undefined) check(taskUrlProblem(input.url), 'url');
  if (input.description !== undefined && input.description !== null) check(descriptionProblem(input.description), 'description');
  if (input.category !== undefined) check(categoryProblem(input.category), 'category');
}

/** An empty key is no key: requests are then sent with an empty signature header. */
function storedKey(key: string | null | undefined): string | null {
  return key === undefined || key === null || key === '' ? null : key;
}

interface UrlToVerify {
  url: string;
  key: string | null;
}

/** The URL and key an update would store and must verify first: only a URL that changes is verified. */
function urlToVerify(current: TaskRow, input: TaskAttributesInput): UrlToVerify | undefined {
  if (input.url === undefined || input.url === current.url) return undefined;
  return { url: input.url, key: input['hmac-key'] !== undefined ? storedKey(input['hmac-key']) : current.hmac_key };
}

function sameVerification(a: UrlToVerify, b: UrlToVerify | undefined): boolean {
  return b !== undefined && a.url === b.url && a.key === b.key;
}

/** What an update writes to the task as it is stored now. */
function taskChanges(current: TaskRow, input: TaskAttributesInput): TaskChanges {
  const changes: TaskChanges = {};
  if (input.name !== undefined && input.name !== current.name) {
    changes.name = input.name;
    changes.name_lower = nameKey(input.name);
  }
  if (input.url !== undefined && input.url !== current.url) changes.url = input.url;
  if (input.description !== undefined) changes.description = input.description;
  if (input.category !== undefined) changes.category = input.category;
  if (input['hmac-key'] !== undefined) changes.hmac_key = storedKey(input['hmac-key']);
  if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
  if (Object.keys(changes).length > 0) changes.updated_at = nowIso();
  return changes;
}

/** Thrown under the lock when the stored row asks for a verification that has not been made. */
class ChangedMeanwhile extends Error {
  constructor(readonly current: TaskRow) {
    super('the run task changed while its URL was being verified');
  }
}

/** Run tasks of an organization (type `tasks`). Every change is on the organization's audit trail, in its transaction. */
export class TasksService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tasks: TasksRepository,
    private readonly gate: OrganizationGate,
    private readonly verifier: TaskVerifier,
    private readonly workspaces: WorkspacesRepository,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async list(found: OrganizationContext, page: PageRequest, include: Set<TaskInclude> = new Set()): Promise<TaskList> {
    const { organization, standing } = found;
    requireAccess(standing, 'organization', 'list-run-tasks', { name: organization.name });
    const { rows, total } = await this.tasks.list(organization.name, page.offset, page.size);
    const { views, related } = await this.views(rows, include, standing);
    return { ...pageOf(page, views, total), related };
  }

  async show(found: TaskAccess, include: Set<TaskInclude> = new Set()): Promise<TaskResult> {
    const { row, context } = found;
    const { views, related } = await this.views([row], include, context.standing);
    return { task: views[0]!, related };
  }

  async create(found: OrganizationContext, input: TaskAttributesInput & { name: string; url: string; category: string }): Promise<TaskView> {
    const { organization, featureSet } = found;
    requireAccess(found.standing, 'organization', 'create-run-task', { name: organization.name });
    checkAttributes(input);
    const limitProblem = (existing: number) => runTaskLimitProblem(featureSet, existing);
    // Refuse early, before contacting the task; checked again under the organization lock below.
    check(limitProblem(await this.tasks.countInOrganization(this.db, organization.name)), 'name');
    const hmacKey = storedKey(input['hmac-key']);
    await this.verifier.verify(input.url, hmacKey, organization.name);
    const now = nowIso();
    const row: TaskRow = {
      id: newId('task'),
      organization_name: organization.name,
      name: input.name,
      name_lower: nameKey(input.name),
      url: input.url,
      description: input.description ?? null,
      category: input.category,
      hmac_key: hmacKey,
      enabled: input.enabled === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.tasks.lockOrganization(trx, organization.name);
        check(limitProblem(await this.tasks.countInOrganization(trx, organization.name)), 'name');
        await this.tasks.insert(trx, row);
        await this.auditTrail.record(trx, taskCreated(found.standing.principal, row));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
    return (await this.plainViews([row]))[0]!;
  }

  /**
   * Changes only what was sent; a new URL is verified (with the new key when one was sent) before it is
   * saved. The changes are decided on the row as stored under the write's lock, so concurrent updates
   * never undo one another and the answer shows what was stored. Verification waits on the network, so it
   * runs before the lock; should the row have changed meanwhile such that another URL or key would be
   * stored, that one is verified in turn. `found` is the route's `task` lookup.
   */
  async update(found: TaskAccess, input: TaskAttributesInput): Promise<TaskView> {
    const { row, context } = found;
    requireAccess(context.standing, 'run-task', 'manage', {});
    checkAttributes(input);
    let seen = row;
    let verified: UrlToVerify | undefined;
    for (let attempt = 1; ; attempt++) {
      const wanted = urlToVerify(seen, input);
      if (wanted && !sameVerification(wanted, verified)) {
        await this.verifier.verify(wanted.url, wanted.key, row.organization_name);
        verified = wanted;
      }
      let stored: TaskRow | undefined;
      try {
        stored = await this.tasks.modify(row.id, (current) => {
          const needed = urlToVerify(current, input);
          if (needed && !sameVerification(needed, verified)) throw new ChangedMeanwhile(current);
          return taskChanges(current, input);
        }, async (trx, before, after) => {
          const entry = taskUpdated(context.standing.principal, before, after);
          if (entry) await this.auditTrail.record(trx, entry);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw Errors.nameTaken();
        if (!(error instanceof ChangedMeanwhile)) throw error;
        if (attempt >= 3) throw Errors.runTaskBusy();
        seen = error.current;
        continue;
      }
      if (!stored) throw Errors.runTaskNotFound();
      return (await this.plainViews([stored]))[0]!;
    }
  }

  /** 422 while attached to any workspace: detach it first. */
  async delete(found: TaskAccess): Promise<void> {
    const { row, context } = found;
    requireAccess(context.standing, 'run-task', 'manage', {});
    if (!(await this.tasks.deleteIfDetached(row.id, (trx) => this.auditTrail.record(trx, taskDeleted(context.standing.principal, row))))) {
      const attached = new Set((await this.tasks.attachmentsOf([row.id])).map((attachment) => attachment.workspace_id)).size;
      throw Errors.runTaskAttached(attached);
    }
  }

  /** The `task` lookup: the task and the caller's organization context, or 404 when it does not exist or the caller may not see it. */
  async visibleTask(principal: Principal, taskId: string): Promise<TaskAccess> {
    const row = await this.tasks.findById(taskId);
    if (!row) throw Errors.runTaskNotFound();
    const context = await this.gate.enterFor(principal, row.organization_name, 'run-task', 'read', {});
    return { row, context };
  }

  private async plainViews(rows: TaskRow[]): Promise<TaskView[]> {
    return (await this.views(rows, new Set(), undefined)).views;
  }

  /** Tasks with their attachments; `related` holds them (and their workspaces, for callers who may read workspaces). */
  private async views(rows: TaskRow[], include: Set<TaskInclude>, standing: OrganizationStanding | undefined): Promise<TaskViews> {
    const attachments = await this.tasks.attachmentsOf(rows.map((row) => row.id));
    const views = rows.map((row) => ({
      task: row,
      attachmentIds: attachments.filter((attachment) => attachment.task_id === row.id).map((attachment) => attachment.id),
    }));
    const related: TaskRelated = { attachments: [], workspaces: [], standing };
    if (include.has('workspace-tasks') || include.has('workspace-tasks.workspace')) related.attachments = attachments;
    if (include.has('workspace-tasks.workspace') && allows(standing, 'workspace', 'read', {})) {
      for (const workspaceId of new Set(attachments.map((attachment) => attachment.workspace_id))) {
        const workspace = await this.workspaces.findById(workspaceId);
        if (workspace) related.workspaces.push(workspace);
      }
    }
    return { views, related };
  }
}
