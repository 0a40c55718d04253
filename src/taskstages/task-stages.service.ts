import type { OrganizationStanding } from '../access/organization-standing.js';
import { taskStagePermissions } from '../access/task-stage-permissions.js';
import { requireAccess } from '../access/require-access.js';
import { HIDDEN_AS } from '../access/access-table.js';
import { Conflict, Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { TaskStagePermissions } from '../access/task-stage-permissions.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationGate } from '../access/organization-gate.js';
import type { VisibleRun } from '../runs/runs.service.js';
import type { TaskStageRunner } from './task-stage-runner.js';
import type { OutcomeRow, TaskResultRow, TaskStageRow, TaskStagesRepository } from './task-stages.repository.js';

export type TaskStageInclude = 'run' | 'run.workspace' | 'task-results' | 'policy-evaluations';
export const TASK_STAGE_INCLUDES: readonly TaskStageInclude[] = ['run', 'run.workspace', 'task-results', 'policy-evaluations'];

/** A task stage with the ids of its results and what the caller may do to it. */
export interface TaskStageView {
  stage: TaskStageRow;
  resultIds: string[];
  permissions: TaskStagePermissions;
}

/** A task stage the caller may see, with the caller's standing in its organization. */
export interface VisibleStage {
  stage: TaskStageRow;
  standing: OrganizationStanding;
}

/** A task stage and its results (`include=run` is read from the run side by the HTTP layer). */
export interface TaskStageDetails {
  stage: TaskStageView;
  results: TaskResultRow[];
}

/** Who overrode, as recorded with the override. */
function principalLabel(principal: Principal): string {
  switch (principal.kind) {
    case 'user':
      return `user:${principal.userId}`;
    case 'team':
      return `team:${principal.teamId}`;
    case 'site-admin':
      return 'site-admin';
    case 'organization':
      return `organization:${principal.organizationName}`;
  }
}

/**
 * Listing and showing stages and results, outcomes, and the override.
 * The caller is checked first: a run the caller may not read is 404, so its existence does not leak;
 * a stage the caller can see but may not override is 403.
 */
export class TaskStagesService {
  constructor(
    private readonly stages: TaskStagesRepository,
    private readonly gate: OrganizationGate,
    private readonly runner: TaskStageRunner,
  ) {}

  async listForRun(found: VisibleRun, page: PageRequest): Promise<Page<TaskStageView>> {
    const { rows, total } = await this.stages.stagesOfRun(found.run.id, page.offset, page.size);
    return pageOf(page, await this.stageViews(found.context.standing, rows), total);
  }

  async show(found: VisibleStage): Promise<TaskStageDetails> {
    const { stage, standing } = found;
    const results = await this.stages.resultsOfStages([stage.id]);
    return { stage: { stage, resultIds: results.map((r) => r.id), permissions: taskStagePermissions(standing) }, results };
  }

  async outcomes(result: TaskResultRow, page: PageRequest): Promise<Page<OutcomeRow>> {
    const { rows, total } = await this.stages.outcomes(result.id, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  /** `found` is the route's `task-stage` lookup. */
  async override(principal: Principal, found: VisibleStage, comment: string | null): Promise<TaskStageView> {
    const { stage, standing } = found;
    requireAccess(standing, 'task-stage', 'override', {});
    const permissions = taskStagePermissions(standing);
    if (stage.status !== 'awaiting_override') throw new Conflict(`the task stage is ${stage.status}, not awaiting_override`);
    const updated = await this.runner.override(stage.id, principalLabel(principal), comment);
    if (!updated) {
      const now = await this.stages.findStage(stage.id);
      throw new Conflict(`the task stage is ${now?.status ?? 'gone'}, not awaiting_override`);
    }
    const results = await this.stages.resultsOfStages([stage.id]);
    return { stage: updated, resultIds: results.map((r) => r.id), permissions };
  }

  /** For `GET /runs/:id?include=task_stages`: the stages of these runs in run then stage order, as `standing` sees them. */
  async forRuns(standing: OrganizationStanding, runIds: readonly string[]): Promise<TaskStageView[]> {
    return this.stageViews(standing, await this.stages.stagesOfRuns(runIds));
  }

  private async stageViews(standing: OrganizationStanding, rows: TaskStageRow[]): Promise<TaskStageView[]> {
    const results = await this.stages.resultsOfStages(rows.map((row) => row.id));
    const permissions = taskStagePermissions(standing);
    return rows.map((row) => ({
      stage: row,
      resultIds: results.filter((result) => result.task_stage_id === row.id).map((result) => result.id),
      permissions,
    }));
  }

  /** The `task-stage` lookup: the stage and the caller's standing, or 404. */
  async visibleStage(principal: Principal, stageId: string): Promise<VisibleStage> {
    const stage = await this.stages.findStage(stageId);
    if (!stage) throw Errors.taskStageNotFound();
    return { stage, standing: await this.standingForRun(principal, stage.run_id, 'task-stage') };
  }

  /** The `task-result` lookup: the result, or 404 when missing or when the caller may not read its run. */
  async visibleResult(principal: Principal, resultId: string): Promise<TaskResultRow> {
    const result = await this.stages.findResult(resultId);
    if (!result) throw Errors.taskResultNotFound();
    await this.standingForRun(principal, result.run_id, 'task-result');
    return result;
  }

  /** The caller's standing in the run's organization, or 404 when the run is missing or not theirs to read. */
  private async standingForRun(principal: Principal, runId: string, thing: 'run' | 'task-stage' | 'task-result'): Promise<OrganizationStanding> {
    const place = await this.stages.placeOfRun(runId);
    if (!place) throw HIDDEN_AS[thing]({});
    return (await this.gate.enterFor(principal, place.organizationName, thing, 'read', {})).standing;
  }
}
