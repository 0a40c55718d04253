import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
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
  app.get(
    '/organizations/:organization_name/tasks',
    { config: { includes: TASK_INCLUDES, lookup: 'organization' }, schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['run-tasks'], summary: 'List run tasks' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const page = parsePage(request.query);
      const result = await tasksService.list(proofOf(request, 'organization'), page, include);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, taskViewResource, taskIncluded(result.related)));
    },
  );

  app.post(
    '/organizations/:organization_name/tasks',
    {
      config: { lookup: 'organization' },
      schema: { params: OrgParams, body: CreateTaskBody, tags: ['run-tasks'], summary: 'Create a run task (sends a verification request)' },
    },
    async (request, reply) => {
      const task = await tasksService.create(proofOf(request, 'organization'), request.body.data.attributes);
      return sendDocument(reply, 201, { data: taskViewResource(task) });
    },
  );

  app.get(
    '/tasks/:task_id',
    {
      config: { includes: TASK_INCLUDES, lookup: 'task' },
      schema: { params: TaskParams, querystring: JsonApiQuery, tags: ['run-tasks'], summary: 'Show a run task (include: workspace_tasks, workspace_tasks.workspace)' },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_INCLUDES);
      const { task, related } = await tasksService.show(proofOf(request, 'task'), include);
      return sendDocument(reply, 200, resourceDocument({ data: taskViewResource(task), included: taskIncluded(related) }));
    },
  );

  app.patch(
    '/tasks/:task_id',
    { config: { lookup: 'task' }, schema: { params: TaskParams, body: UpdateTaskBody, tags: ['run-tasks'], summary: 'Update a run task' } },
    async (request, reply) => {
      const task = await tasksService.update(proofOf(request, 'task'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: taskViewResource(task) });
    },
  );

  app.delete(
    '/tasks/:task_id',
    { config: { lookup: 'task' }, schema: { params: TaskParams, tags: ['run-tasks'], summary: 'Delete a run task' } },
    async (request, reply) => {
      await tasksService.delete(proofOf(request, 'task'));
      return sendNoContent(reply);
    },
  );
}
