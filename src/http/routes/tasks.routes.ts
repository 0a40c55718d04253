import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, NullableString, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { TASK_INCLUDES, type TaskAttributesInput } from '../../runtasks/tasks.service.js';

const taskAttributes = (create: boolean) => {
  const required = <T extends ReturnType<typeof Type.String>>(schema: T) => (create ? schema : Type.Optional(schema));
  return Type.Object({
    name: required(Type.String({ maxLength: 1000 })),
    url: required(Type.String({ maxLength: 10_000 })),
    category: required(Type.String({ maxLength: 100 })),
    description: NullableString(10_000),
    'hmac-key': NullableString(10_000),
    enabled: Type.Optional(Type.Boolean()),
  });
};
const CreateTaskBody = resourceBody('tasks', taskAttributes(true));
const UpdateTaskBody = resourceBody('tasks', taskAttributes(false), { attributesRequired: false });
const OrgParams = IdParam('organization_name');
const TaskParams = IdParam('task_id');

/** Run tasks, type `tasks` (CONTRACT 7). */
export async function tasksRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { tasksService, config } = services;

  app.get<{ Params: { organization_name: string }; Querystring: Query }>(
    '/organizations/:organization_name/tasks',
    { schema: { params: OrgParams, tags: ['run-tasks'], summary: 'List run tasks' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const page = parsePage(request.query);
      const result = await tasksService.list(callerOf(request), request.params.organization_name, page, include);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  app.post<{ Params: { organization_name: string }; Body: { data: { attributes: TaskAttributesInput & { name: string; url: string; category: string } } } }>(
    '/organizations/:organization_name/tasks',
    { schema: { params: OrgParams, body: CreateTaskBody, tags: ['run-tasks'], summary: 'Create a run task (sends a verification request)' } },
    async (request, reply) => {
      const data = await tasksService.create(callerOf(request), request.params.organization_name, request.body.data.attributes);
      return sendDocument(reply, 201, { data });
    },
  );

  app.get<{ Params: { task_id: string }; Querystring: Query }>(
    '/tasks/:task_id',
    { schema: { params: TaskParams, tags: ['run-tasks'], summary: 'Show a run task (include: workspace_tasks, workspace_tasks.workspace)' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const { data, included } = await tasksService.show(callerOf(request), request.params.task_id, include);
      return sendDocument(reply, 200, resourceDocument({ data, included }));
    },
  );

  // An unknown task is 404 before the body is looked at (as for teams).
  app.patch<{ Params: { task_id: string }; Body: { data: { attributes?: TaskAttributesInput } } }>(
    '/tasks/:task_id',
    {
      schema: { params: TaskParams, body: UpdateTaskBody, tags: ['run-tasks'], summary: 'Update a run task' },
      preValidation: async (request) => {
        await tasksService.visibleTask(callerOf(request), (request.params as { task_id: string }).task_id);
      },
    },
    async (request, reply) => {
      const data = await tasksService.update(callerOf(request), request.params.task_id, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data });
    },
  );

  app.delete<{ Params: { task_id: string } }>(
    '/tasks/:task_id',
    { schema: { params: TaskParams, tags: ['run-tasks'], summary: 'Delete a run task' } },
    async (request, reply) => {
      await tasksService.delete(callerOf(request), request.params.task_id);
      return sendNoContent(reply);
    },
  );
}
