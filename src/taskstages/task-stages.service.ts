import type { OrganizationStanding } from '../access/organization-standing.js';
import { taskStagePermissions } from '../access/task-stage-permissions.js';
import { requireAccess } from '../access/require-access.js';
import { HIDDEN_AS } from '../access/access-table.js';
import { Conflict, Errors } from '../core/errors.js';
import type { Resource } from '../http/jsonapi.js';
import type { PageRequest } from '../http/pagination.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationGate } from '../access/organization-gate.js';
import type { TaskStageDocuments } from '../http/serializers/task-stage-documents.js';
import type { TaskStageRunner } from './task-stage-runner.js';
import type { TaskResultRow, TaskStageRow, TaskStagesRepository } from './task-stages.repository.js';
import { outcomeResource, taskResultResource, taskStageResource } from '../http/serializers/task-stages.serializer.js';

export type TaskStageInclude = 'run' | 'run.workspace' | 'task-results' | 'policy-evaluations';
export const TASK_STAGE_INCLUDES: readonly TaskStageInclude[] = ['run', 'run.workspace', 'task-results', 'policy-evaluations'];

/** The run side shows a run (and its workspace) as the caller sees it: `RunsService.show`. */
export interface RunDocuments {
  show(principal: Principal, runId: string, include: Set<'workspace'>): Promise<{ data: Resource; included: Resource[] }>;
}

export interface DocumentParts {
  data: Resource;
  included: Resource[];
}

export interface ListParts {
  data: Resource[];
  total: number;
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
 * Seed 4.6–4.9 and CONTRACT 8: listing and showing stages and results, outcomes, and the override.
 * The caller is checked first: a run the caller may not read is 404 (seed 5.5); a visible stage the
 * caller may not override is 403 (CONTRACT 3).
 */
export class TaskStagesService implements TaskStageDocuments {
  constructor(
    private readonly stages: TaskStagesRepository,
    private readonly gate: OrganizationGate,
    private readonly runner: TaskStageRunner,
    private readonly runDocuments: RunDocuments,
  ) {}

  async listForRun(principal: Principal, runId: string, page: PageRequest): Promise<ListParts> {
    const standing = await this.standingForRun(principal, runId, 'run');
    const { rows, total } = await this.stages.stagesOfRun(runId, page.offset, page.size);
    return { data: await this.stageResources(standing, rows), total };
  }

  async show(principal: Principal, stageId: string, include: Set<TaskStageInclude>): Promise<DocumentParts> {
    const { stage, standing } = await this.visibleStage(principal, stageId);
    const results = await this.stages.resultsOfStages([stage.id]);
    const included: Resource[] = [];
    if (include.has('run') || include.has('run.workspace')) {
      const run = await this.runDocuments.show(principal, stage.run_id, new Set(include.has('run.workspace') ? ['workspace'] : []));
      // JSON:API: the run on the way to its workspace is included too.
      included.push(run.data);
      included.push(...run.included);
    }
    if (include.has('task-results')) included.push(...results.map(taskResultResource));
    // include=policy-evaluations is accepted and adds nothing: there are none.
    return { data: taskStageResource(stage, results.map((r) => r.id), taskStagePermissions(standing)), included };
  }

  async showResult(principal: Principal, resultId: string): Promise<Resource> {
    return taskResultResource(await this.visibleResult(principal, resultId));
  }

  async outcomes(principal: Principal, resultId: string, page: PageRequest): Promise<ListParts> {
    const result = await this.visibleResult(principal, resultId);
    const { rows, total } = await this.stages.outcomes(result.id, page.offset, page.size);
    return { data: rows.map(outcomeResource), total };
  }

  async override(principal: Principal, stageId: string, comment: string | null): Promise<DocumentParts> {
    const { stage, standing } = await this.visibleStage(principal, stageId);
    requireAccess(standing, 'task-stage', 'override', {});
    const permissions = taskStagePermissions(standing);
    if (stage.status !== 'awaiting_override') throw new Conflict(`the task stage is ${stage.status}, not awaiting_override`);
    const updated = await this.runner.override(stage.id, principalLabel(principal), comment);
    if (!updated) {
      const now = await this.stages.findStage(stage.id);
      throw new Conflict(`the task stage is ${now?.status ?? 'gone'}, not awaiting_override`);
    }
    const results = await this.stages.resultsOfStages([stage.id]);
    return { data: taskStageResource(updated, results.map((r) => r.id), permissions), included: [] };
  }

  /** TaskStageDocuments (for `GET /runs/:id?include=task_stages`): the stages of these runs in run then stage order. */
  async forRuns(standing: OrganizationStanding, runIds: readonly string[]): Promise<Resource[]> {
    return this.stageResources(standing, await this.stages.stagesOfRuns(runIds));
  }

  private async stageResources(standing: OrganizationStanding, rows: TaskStageRow[]): Promise<Resource[]> {
    const results = await this.stages.resultsOfStages(rows.map((row) => row.id));
    const permissions = taskStagePermissions(standing);
    return rows.map((row) =>
      taskStageResource(
        row,
        results.filter((result) => result.task_stage_id === row.id).map((result) => result.id),
        permissions,
      ),
    );
  }

  /** The stage and the caller's standing, or 404 (also used before a request body is validated). */
  async visibleStage(principal: Principal, stageId: string): Promise<{ stage: TaskStageRow; standing: OrganizationStanding }> {
    const stage = await this.stages.findStage(stageId);
    if (!stage) throw Errors.taskStageNotFound();
    return { stage, standing: await this.standingForRun(principal, stage.run_id, 'task-stage') };
  }

  private async visibleResult(principal: Principal, resultId: string): Promise<TaskResultRow> {
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
