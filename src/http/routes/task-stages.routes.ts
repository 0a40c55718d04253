import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument } from '../reply.js';
import { IdParam } from '../schemas.js';
import type { Services } from '../../services.js';
import { TASK_STAGE_INCLUDES } from '../../taskstages/task-stages.service.js';

/** Plain JSON, as HCP Terraform takes it; every key optional (the seed's example sends no body). */
const OverrideBody = Type.Object({ comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) });

/** Seed 4.6–4.9 and CONTRACT 8. */
export async function taskStagesRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { taskStagesService, config } = services;

  app.get<{ Params: { run_id: string }; Querystring: Query }>(
    '/runs/:run_id/task-stages',
    { schema: { params: IdParam('run_id'), tags: ['task-stages'], summary: 'List the task stages of a run' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.listForRun(callerOf(request), request.params.run_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  app.get<{ Params: { task_stage_id: string }; Querystring: Query }>(
    '/task-stages/:task_stage_id',
    { schema: { params: IdParam('task_stage_id'), tags: ['task-stages'], summary: 'Show a task stage' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_STAGE_INCLUDES);
      const { data, included } = await taskStagesService.show(callerOf(request), request.params.task_stage_id, include);
      return sendDocument(reply, 200, resourceDocument({ data, included }));
    },
  );

  app.post<{ Params: { task_stage_id: string }; Body: { comment?: string | null } }>(
    '/task-stages/:task_stage_id/actions/override',
    {
      schema: { params: IdParam('task_stage_id'), body: OverrideBody, tags: ['task-stages'], summary: 'Override a task stage' },
      // 404 for an invisible stage comes before anything about the body.
      preValidation: async (request) => {
        await taskStagesService.visibleStage(callerOf(request), (request.params as { task_stage_id: string }).task_stage_id);
      },
    },
    async (request, reply) => {
      const { data } = await taskStagesService.override(callerOf(request), request.params.task_stage_id, request.body.comment ?? null);
      return sendDocument(reply, 200, { data });
    },
  );

  app.get<{ Params: { task_result_id: string } }>(
    '/task-results/:task_result_id',
    { schema: { params: IdParam('task_result_id'), tags: ['task-stages'], summary: 'Show a task result' } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: await taskStagesService.showResult(callerOf(request), request.params.task_result_id) }),
  );

  app.get<{ Params: { task_result_id: string }; Querystring: Query }>(
    '/task-results/:task_result_id/outcomes',
    { schema: { params: IdParam('task_result_id'), tags: ['task-stages'], summary: 'List the outcomes of a task result' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.outcomes(callerOf(request), request.params.task_result_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );
}
