import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { JsonApiQuery, resourceBody } from '../schemas.js';
import { workspaceTaskResource } from '../serializers/workspace-tasks.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { Errors } from '../../core/errors.js';

const attributes = Type.Object({
  'enforcement-level': Type.Optional(Type.String({ maxLength: 100 })),
  stages: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
  stage: Type.Optional(Type.String({ maxLength: 100 })),
});
const CreateBody = resourceBody('workspace-tasks', attributes, {
  relationships: Type.Object({
    task: Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal('tasks') }) })),
  }),
});
const UpdateBody = resourceBody('workspace-tasks', attributes, { attributesRequired: false });
const WorkspaceParams = Type.Object({ workspace_id: Type.String({ maxLength: 255 }) });
const AttachmentParams = Type.Object({ workspace_id: Type.String({ maxLength: 255 }), workspace_task_id: Type.String({ maxLength: 255 }) });

/** Workspace run task attachments, type `workspace-tasks`. */
export async function workspaceTasksRoutes(app: TypedApp, services: Services): Promise<void> {
  const { workspaceTasksService, config } = services;
  app.decorateRequest('visibleWorkspaceTask', undefined);

  app.get(
    '/workspaces/:workspace_id/tasks',
    { schema: { params: WorkspaceParams, querystring: JsonApiQuery, tags: ['workspace-tasks'], summary: 'List the run tasks of a workspace' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await workspaceTasksService.list(callerOf(request), request.params.workspace_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, workspaceTaskResource));
    },
  );

  app.post(
    '/workspaces/:workspace_id/tasks',
    { schema: { params: WorkspaceParams, body: CreateBody, tags: ['workspace-tasks'], summary: 'Attach a run task to a workspace' } },
    async (request, reply) => {
      const { attributes: input, relationships } = request.body.data;
      const row = await workspaceTasksService.create(callerOf(request), request.params.workspace_id, input, relationships?.task?.data.id);
      return sendDocument(reply, 201, { data: workspaceTaskResource(row) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Show a workspace run task' } },
    async (request, reply) => {
      const row = await workspaceTasksService.show(callerOf(request), request.params.workspace_id, request.params.workspace_task_id);
      return sendDocument(reply, 200, { data: workspaceTaskResource(row) });
    },
  );

  app.patch(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    {
      schema: { params: AttachmentParams, body: UpdateBody, tags: ['workspace-tasks'], summary: 'Update a workspace run task' },
      preValidation: async (request) => {
        const params = request.params;
        request.visibleWorkspaceTask = await workspaceTasksService.visible(callerOf(request), params.workspace_id, params.workspace_task_id);
      },
    },
    async (request, reply) => {
      const found = request.visibleWorkspaceTask;
      if (!found) throw Errors.workspaceTaskNotFound();
      const row = await workspaceTasksService.update(found, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceTaskResource(row) });
    },
  );

  app.delete(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Detach a run task from a workspace' } },
    async (request, reply) => {
      await workspaceTasksService.delete(callerOf(request), request.params.workspace_id, request.params.workspace_task_id);
      return sendNoContent(reply);
    },
  );
}
