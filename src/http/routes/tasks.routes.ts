import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { taskIncluded, taskViewResource } from '../serializers/tasks.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { TASK_INCLUDES } from '../../runtasks/tasks.service.js';
import { Errors } from '../../core/errors.js';

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

/** Run tasks, type `tasks`. */
export async function tasksRoutes(app: TypedApp, services: Services): Promise<void> {
  const { tasksService, config } = services;
  app.decorateRequest('visibleTask', undefined);

  app.get(
    '/organizations/:organization_name/tasks',
    { schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['run-tasks'], summary: 'List run tasks' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const page = parsePage(request.query);
      const result = await tasksService.list(callerOf(request), request.params.organization_name, page, include);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, taskViewResource, taskIncluded(result.related)));
    },
  );

  app.post(
    '/organizations/:organization_name/tasks',
    { schema: { params: OrgParams, body: CreateTaskBody, tags: ['run-tasks'], summary: 'Create a run task (sends a verification request)' } },
    async (request, reply) => {
      const task = await tasksService.create(callerOf(request), request.params.organization_name, request.body.data.attributes);
      return sendDocument(reply, 201, { data: taskViewResource(task) });
    },
  );

  app.get(
    '/tasks/:task_id',
    { schema: { params: TaskParams, querystring: JsonApiQuery, tags: ['run-tasks'], summary: 'Show a run task (include: workspace_tasks, workspace_tasks.workspace)' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const { task, related } = await tasksService.show(callerOf(request), request.params.task_id, include);
      return sendDocument(reply, 200, resourceDocument({ data: taskViewResource(task), included: taskIncluded(related) }));
    },
  );

  // An unknown task is 404 before the body is looked at (as for teams); the task found is kept for the handler.
  app.patch(
    '/tasks/:task_id',
    {
      schema: { params: TaskParams, body: UpdateTaskBody, tags: ['run-tasks'], summary: 'Update a run task' },
      preValidation: async (request) => {
        request.visibleTask = await tasksService.visibleTask(callerOf(request), request.params.task_id);
      },
    },
    async (request, reply) => {
      const found = request.visibleTask;
      if (!found) throw Errors.runTaskNotFound();
      const task = await tasksService.update(found, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: taskViewResource(task) });
    },
  );

  app.delete(
    '/tasks/:task_id',
    { schema: { params: TaskParams, tags: ['run-tasks'], summary: 'Delete a run task' } },
    async (request, reply) => {
      await tasksService.delete(callerOf(request), request.params.task_id);
      return sendNoContent(reply);
    },
  );
}
