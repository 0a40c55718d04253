import type { Kysely } from 'kysely';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { decisionRefused, runDecided } from '../record/run-decision-audit.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { requireAccess } from '../access/require-access.js';
import { nowIso } from '../core/clock.js';
import type { Database, TaskStageName, TaskStagesTable } from '../db/schema.js';
import { ApiError, Errors } from '../core/errors.js';
import { pageOf, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationContext } from '../access/organization-gate.js';
import { compareStages } from '../shared/stage-order.js';
import type { WorkspaceTasksRepository } from '../runtasks/workspace-tasks.repository.js';
import type { UsersRepository } from '../identity/users.repository.js';
import type { PoliciesRepository } from '../policies/policies.repository.js';
import type { Executor } from '../jobs/job-queue.js';
import type { ConfigurationVersionRow, ConfigurationVersionsRepository } from '../workspaces/configuration-versions.repository.js';
import type { WorkspaceContext, WorkspaceGate } from '../access/workspace-gate.js';
import type { WorkspaceRow, WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import { newRunRows } from './new-run-rows.js';
import { runOptionsOf, type RunOptionAttributes } from './run-options.js';
import type { RunListFilter } from './run-list-filter.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import { takeWorkspaceTurn } from '../workspaces/workspace-current-run.js';
import { runCreator } from './run-creator.js';
import { pendingRunsOf } from './workspace-queue.repository.js';
import { actorOf, type Actor } from '../record/actor.js';
import { eventTableRows, runEventRows } from '../record/run-record.js';
import type { RunRecordIds } from '../record/run-record.repository.js';
import { describeRunStatus } from './run-event-descriptions.js';
import type { RunProgress } from './run-progress.js';
import { runFactsOf } from './run-facts.js';
import { takesTurns } from './run-queue.js';
import { transition, type RunEvent, type RunStatus } from './run-state-machine.js';
import type { RunTransitions } from './run-transitions.js';
import type { PhaseRow, RunRow, RunsRepository } from './runs.repository.js';
import type { RunList, RunRelated, RunResult, RunView } from './run-view.js';

/** What a run document shows of a run's plan, apply and task stages. */
interface RunRelations {
  plans: PhaseRow[];
  applies: PhaseRow[];
  stages: Array<Pick<TaskStagesTable, 'id' | 'run_id' | 'stage' | 'status'>>;
  /** The ids of the runs' events and their comments, oldest first. */
  record: RunRecordIds[];
}

export type RunInclude = 'task-stages' | 'plan' | 'apply' | 'workspace' | 'configuration-version' | 'created-by' | 'confirmed-by';
export const RUN_INCLUDES: readonly RunInclude[] = ['task-stages', 'plan', 'apply', 'workspace', 'configuration-version', 'created-by', 'confirmed-by'];

/** A run the caller may read: its workspace and the caller's context in its organization. */
export interface VisibleRun {
  run: RunRow;
  workspace: WorkspaceRow;
  context: OrganizationContext;
}

export interface CreateRunInput {
  attributes: { message?: string; 'plan-only'?: boolean; 'auto-apply'?: boolean; 'is-destroy'?: boolean } & RunOptionAttributes;
  workspaceId: string | undefined;
  configurationVersionId: string | undefined;
}

export type RunAction = 'apply' | 'discard' | 'cancel';

const ACTION_EVENTS: Record<RunAction, { event: RunEvent; verb: string }> = {
  apply: { event: 'confirm', verb: 'applied' },
  discard: { event: 'discard', verb: 'discarded' },
  cancel: { event: 'cancel', verb: 'canceled' },
};

const DEFAULT_MESSAGE = 'Queued manually via the API';

function byRunOrder<T extends { stage: TaskStageName }>(stages: T[]): T[] {
  return [...stages].sort((a, b) => compareStages(a.stage, b.stage));
}

/** Runs: create with their task stages, show, list, apply, discard, cancel. */
export class RunsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runs: RunsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly versions: ConfigurationVersionsRepository,
    private readonly workspaceTasks: WorkspaceTasksRepository,
    private readonly workspaceGate: WorkspaceGate,
    private readonly transitions: RunTransitions,
    private readonly progress: RunProgress,
    private readonly policies: Pick<PoliciesRepository, 'anySetApplies'>,
    private readonly users: Pick<UsersRepository, 'findManyByIds'>,
    private readonly auditTrail: AuditTrailRecorder,
    private readonly limits: { pendingRunsPerWorkspace: number } = { pendingRunsPerWorkspace: Infinity },
  ) {}

  /** Creates a run for the caller (see insertRun for what a run is made of). */
  async create(principal: Principal, input: CreateRunInput, include: Set<RunInclude>): Promise<RunResult> {
    if (input.workspaceId === undefined) throw Errors.runWorkspaceRequired();
    const { workspace, context } = await this.workspaceGate.enter(principal, input.workspaceId);
    requireAccess(context.standing, 'workspace', 'queue-run', {});
    if (executionModeOf(workspace.execution_mode) === 'local') throw Errors.localExecutionQueuesNoRuns();
    const version = await this.configurationVersionFor(workspace, input.configurationVersionId);
    const creator = { ...runCreator(principal), actor: actorOf(principal) };
    const created = await this.runs.newRunScope((executor) => this.insertRun(executor, workspace, version, input.attributes, creator));
    // The run as created, with the relations it was created with: nothing to read again.
    const { views, related } = await this.views([created.run], workspace, include, created);
    return { run: views[0]!, standing: context.standing, related };
  }

  /**
   * `auto-queue-runs` (HCP's default): the upload of a configuration version queues a run, in the
   * upload's transaction, on behalf of whoever created the version. Speculative versions queue plan-only runs.
   */
  async queueForUpload(executor: Executor, versionId: string): Promise<void> {
    // Every read goes through the transaction: on SQLite it holds the only connection.
    const version = await this.versions.findById(versionId, executor);
    const workspace = version ? await this.workspaces.findById(version.workspace_id, executor) : undefined;
    // Local execution: Terraform runs elsewhere and Teamstage queues nothing (as HCP).
    if (!version || !workspace || executionModeOf(workspace.execution_mode) === 'local') return;
    const username = version.created_by_user_id ? await this.runs.usernameOf(executor, version.created_by_user_id) : undefined;
    const creator = { userId: username ? version.created_by_user_id : null, name: username ?? 'site-admin' };
    const uploader: Actor | null = creator.userId ? { userId: creator.userId, name: creator.name, kind: 'user' } : null;
    await this.insertRun(executor, workspace, version, { message: 'Queued automatically when the configuration was uploaded' }, { ...creator, actor: uploader });
  }

  /**
   * The run, its plan and apply, and its task stages with their results (new-run-rows.ts), with the job
   * that starts the run, written in the caller's transaction, or, on PostgreSQL, in one statement.
   */
  private async insertRun(
    executor: Executor,
    workspace: WorkspaceRow,
    version: ConfigurationVersionRow,
    attributes: CreateRunInput['attributes'],
    creator: { userId: string | null; name: string; actor: Actor | null },
  ): Promise<{ run: RunRow } & RunRelations> {
    const tasks = (await this.workspaceTasks.enabledFor(executor, workspace.id)).map((row) => ({
      workspaceTaskId: row.id,
      taskId: row.task_id,
      taskName: row.task_name,
      taskUrl: row.task_url,
      enforcementLevel: row.enforcement_level,
      stages: row.stages,
      requiredApprovals: row.required_approvals,
    }));
    const planOnly = attributes['plan-only'] === true || version.speculative === 1;
    // Plan-only runs never queue. Counted before the write: concurrent requests may pass the limit by their number.
    if (!planOnly && (await pendingRunsOf(executor, workspace.id)) >= this.limits.pendingRunsPerWorkspace) {
      throw Errors.tooManyPendingRuns(this.limits.pendingRunsPerWorkspace);
    }
    if (attributes['terraform-version'] !== undefined && attributes['plan-only'] !== true) throw Errors.terraformVersionNeedsPlanOnly();
    const rows = newRunRows({
      workspaceId: workspace.id,
      configurationVersionId: version.id,
      planOnly,
      autoApply: attributes['auto-apply'] ?? workspace.auto_apply === 1,
      isDestroy: attributes['is-destroy'] === true,
      executionMode: executionModeOf(workspace.execution_mode),
      message: attributes.message ?? DEFAULT_MESSAGE,
      options: runOptionsOf(attributes),
      creator,
      tasks,
      requiredApprovals: Number(workspace.required_approvals ?? 1),
      policiesApply: await this.policies.anySetApplies(executor, workspace.id),
      now: nowIso(),
    });
    // The run's first event: queued, by its creator.
    const queued = runEventRows([
      { runId: rows.run.id, action: 'queued', description: describeRunStatus('pending', creator.actor), actor: creator.actor, at: rows.run.created_at },
    ]);
    await this.runs.insertNewRun(executor, rows, this.progress.advanceJob(rows.run.id, workspace.organization_name), eventTableRows(queued));
    // HCP: on a locked workspace the run first in line is its current run, pending until the unlock (terraform's and
    // tofu's `cloud` block read that to say "Waiting for the manually locked workspace to be unlocked").
    if (Number(workspace.locked) === 1 && !planOnly && (await this.runs.runsAhead(executor, rows.run)) === 1) await takeWorkspaceTurn(executor, workspace.id, rows.run.id);
    const stages = rows.stages.map(({ id, run_id, stage, status }) => ({ id, run_id, stage, status }));
    const record = queued.events.map(({ id, run_id, comment_id }) => ({ id, run_id, comment_id }));
    return { run: rows.run, plans: [rows.plan], applies: [rows.apply], stages, record };
  }

  async show(found: VisibleRun, include: Set<RunInclude>): Promise<RunResult> {
    const { run, workspace, context } = found;
    const { views, related } = await this.views([run], workspace, include);
    return { run: views[0]!, standing: context.standing, related };
  }

  async list(found: WorkspaceContext, page: PageRequest, include: Set<RunInclude>, filter?: RunListFilter): Promise<RunList> {
    const { workspace, context } = found;
    const { rows, total } = await this.runs.listRuns(workspace.id, page.offset, page.size, filter);
    const { views, related } = await this.views(rows, workspace, include);
    return { ...pageOf(page, views, total), standing: context.standing, related };
  }

  /** apply, discard, cancel: 409 when the state machine does not allow it now; 403 without the right. */
  async act(found: VisibleRun, action: RunAction, comment: string | null = null): Promise<void> {
    const { context } = found;
    const runId = found.run.id;
    const actor = actorOf(context.standing.principal);
    try {
      requireAccess(context.standing, 'run', 'act', { action });
    } catch (error) {
      // A refused decision is on the audit trail (a 404, the run hidden, is not: the caller learns nothing).
      if (error instanceof ApiError && error.status === 403) {
        const entry = decisionRefused(context.organization.name, actor, {
          id: runId, type: 'run', action, status: error.status, reason: error.message, meta: { 'workspace-id': found.run.workspace_id, comment },
        });
        await this.auditTrail.transaction(async () => ({ result: undefined, entries: [entry] }));
      }
      throw error;
    }
    const { event, verb } = ACTION_EVENTS[action];
    // A compare-and-set that loses to run progress re-reads and decides again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const done = await this.db.transaction().execute(async (trx) => {
        const run = await this.runs.findRun(runId, trx);
        if (!run) throw Errors.runNotFound();
        const stages = await this.runs.taskStagesOf(runId, trx);
        const { plan } = await this.runs.planAndApplyOf(runId, trx);
        const to = transition(run.status, event, runFactsOf(run, stages, plan?.has_changes === 1));
        if (!to) {
          const why = action === 'apply' && run.plan_only === 1 ? 'a plan-only run cannot be applied' : `the run is ${run.status}`;
          throw Errors.runActionRefused(verb, why);
        }
        if (!(await this.transitions.move(trx, { ...run, organizationName: context.organization.name }, to, {}, {}, { actor, comment }))) return false;
        // The decision on the organization's audit trail too, beside its run event.
        await this.auditTrail.record(trx, runDecided(context.organization.name, actor, { id: run.id, workspaceId: run.workspace_id, from: run.status, to }, action, comment));
        // HCP's confirmed-by: the user who applied it (a team token acts as its service account).
        if (action === 'apply') await this.runs.setConfirmedBy(trx, run.id, runCreator(context.standing.principal).userId);
        if (action === 'apply') await this.progress.enqueueAdvance(trx, run.id, context.organization.name);
        else await this.progress.closeOpenStages(trx, run.id, action);
        return true;
      });
      if (done) return;
    }
    throw Errors.runBusy();
  }

  /** The `run` lookup: the run, its workspace and the caller's organization context, or 404 when missing or invisible. */
  async visibleRun(principal: Principal, runId: string): Promise<VisibleRun> {
    const run = await this.runs.findRun(runId);
    const workspace = run ? await this.workspaces.findById(run.workspace_id) : undefined;
    if (!run || !workspace) throw Errors.runNotFound();
    const context = await this.workspaceGate.enterOrganizationOf(principal, workspace, 'run');
    return { run, workspace, context };
  }

  private async configurationVersionFor(workspace: WorkspaceRow, id: string | undefined) {
    if (id === undefined) {
      const latest = await this.versions.latestUploaded(this.db, workspace.id);
      if (!latest) {
        throw Errors.noUploadedConfiguration();
      }
      return latest;
    }
    const version = await this.versions.findById(id);
    if (!version || version.workspace_id !== workspace.id) throw Errors.configurationVersionNotInWorkspace(id);
    if (version.status !== 'uploaded') throw Errors.configurationVersionNotUploaded();
    return version;
  }

  /**
   * Runs of one workspace with their relationships (a handful of queries, whatever the page size), or
   * with the relations the caller already holds (`known`: a run just created).
   */
  private async views(
    rows: RunRow[],
    workspace: WorkspaceRow,
    include: Set<RunInclude>,
    known?: RunRelations,
  ): Promise<{ views: RunView[]; related: RunRelated }> {
    const runIds = rows.map((row) => row.id);
    const { plans, applies, stages, record } = known ?? (await this.relationsOf(runIds));
    const positions = new Map<string, number>();
    for (const row of rows) {
      if (row.status === 'pending' && takesTurns(row)) positions.set(row.id, await this.runs.runsAhead(this.db, row));
    }
    const views = rows.map((row): RunView => {
      const plan = plans.find((candidate) => candidate.run_id === row.id);
      return {
        row,
        planId: plan?.id ?? null,
        applyId: applies.find((candidate) => candidate.run_id === row.id)?.id ?? null,
        hasChanges: plan?.has_changes === 1,
        stages: byRunOrder(stages.filter((stage) => stage.run_id === row.id)),
        positionInQueue: positions.get(row.id) ?? 0,
        eventIds: record.filter((entry) => entry.run_id === row.id).map((entry) => entry.id),
        commentIds: record.flatMap((entry) => (entry.run_id === row.id && entry.comment_id !== null ? [entry.comment_id] : [])),
      };
    });
    const related: RunRelated = {
      plans: include.has('plan') ? plans : [],
      applies: include.has('apply') ? applies : [],
      workspace: include.has('workspace') && rows.length > 0 ? workspace : undefined,
      versions: [],
      users: [],
    };
    const userIds = new Set<string>();
    for (const row of rows) {
      if (include.has('created-by') && row.created_by_user_id) userIds.add(row.created_by_user_id);
      if (include.has('confirmed-by') && row.confirmed_by_user_id) userIds.add(row.confirmed_by_user_id);
    }
    if (userIds.size > 0) related.users = await this.users.findManyByIds([...userIds]);
    if (include.has('configuration-version')) {
      for (const id of new Set(rows.map((row) => row.configuration_version_id).filter((id): id is string => id !== null))) {
        const version = await this.versions.findById(id);
        if (version) related.versions.push(version);
      }
    }
    // include=task-stages is read by the HTTP layer from the task stage side, which sits above runs.
    return { views, related };
  }

  private async relationsOf(runIds: string[]): Promise<RunRelations> {
    return this.runs.relationsOfRuns(runIds);
  }
}
