import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { parseInclude } from '../include.js';
import { resourceDocument, type Resource } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument } from '../reply.js';
import { IdParam, JsonApiQuery } from '../schemas.js';
import { runIncluded, runResource } from '../serializers/runs.serializer.js';
import { outcomeResource, taskResultResource, taskStageViewResource } from '../serializers/task-stages.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { Errors } from '../../core/errors.js';
import type { Services } from '../../services.js';
import { TASK_STAGE_INCLUDES } from '../../taskstages/task-stages.service.js';

/** Plain JSON, as HCP Terraform takes it; every key optional (HCP Terraform's documented example sends no body). */
const OverrideBody = Type.Object({ comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) });

/** Task stages and results of a run: list, show, outcomes, override. */
export async function taskStagesRoutes(app: TypedApp, services: Services): Promise<void> {
  const { taskStagesService, runsService, config } = services;
  app.decorateRequest('visibleStage', undefined);

  app.get(
    '/runs/:run_id/task-stages',
    { schema: { params: IdParam('run_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'List the task stages of a run' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.listForRun(callerOf(request), request.params.run_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, taskStageViewResource));
    },
  );

  app.get(
    '/task-stages/:task_stage_id',
    { schema: { params: IdParam('task_stage_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'Show a task stage' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_STAGE_INCLUDES);
      const principal = callerOf(request);
      const { stage, results } = await taskStagesService.show(principal, request.params.task_stage_id);
      const included: Resource[] = [];
      if (include.has('run') || include.has('run.workspace')) {
        const run = await runsService.show(principal, stage.stage.run_id, new Set(include.has('run.workspace') ? ['workspace'] : []));
        // JSON:API: the run on the way to its workspace is included too.
        included.push(runResource(run.run, run.standing), ...runIncluded(run.related, run.standing, services.config.baseUrl));
      }
      if (include.has('task-results')) included.push(...results.map(taskResultResource));
      // include=policy-evaluations is accepted and adds nothing: there are none.
      return sendDocument(reply, 200, resourceDocument({ data: taskStageViewResource(stage), included }));
    },
  );

  app.post(
    '/task-stages/:task_stage_id/actions/override',
    {
      schema: { params: IdParam('task_stage_id'), body: OverrideBody, tags: ['task-stages'], summary: 'Override a task stage' },
      // 404 for an invisible stage comes before anything about the body; the stage found is kept for the handler.
      preValidation: async (request) => {
        request.visibleStage = await taskStagesService.visibleStage(callerOf(request), request.params.task_stage_id);
      },
    },
    async (request, reply) => {
      const found = request.visibleStage;
      if (!found) throw Errors.taskStageNotFound();
      const stage = await taskStagesService.override(callerOf(request), found, request.body.comment ?? null);
      return sendDocument(reply, 200, { data: taskStageViewResource(stage) });
    },
  );

  app.get(
    '/task-results/:task_result_id',
    { schema: { params: IdParam('task_result_id'), tags: ['task-stages'], summary: 'Show a task result' } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: taskResultResource(await taskStagesService.showResult(callerOf(request), request.params.task_result_id)) }),
  );

  app.get(
    '/task-results/:task_result_id/outcomes',
    { schema: { params: IdParam('task_result_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'List the outcomes of a task result' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.outcomes(callerOf(request), request.params.task_result_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, outcomeResource));
    },
  );
}
