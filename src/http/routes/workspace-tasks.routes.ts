import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { JsonApiQuery, resourceBody } from '../schemas.js';
import { workspaceTaskResource } from '../serializers/workspace-tasks.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

const attributes = Type.Object({
  'enforcement-level': Type.Optional(Type.String({ maxLength: 100 })),
  stages: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
  stage: Type.Optional(Type.String({ maxLength: 100 })),
  /** Distinct people whose overrides a failed mandatory result needs before its stage moves on (1..10, default 1). */
  'required-approvals': Type.Optional(Type.Number()),
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
  app.get(
    '/workspaces/:workspace_id/tasks',
    {
      config: { lookup: 'workspace' },
      schema: { params: WorkspaceParams, querystring: JsonApiQuery, tags: ['workspace-tasks'], summary: 'List the run tasks of a workspace' },
    },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await workspaceTasksService.list(proofOf(request, 'workspace'), page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, workspaceTaskResource));
    },
  );

  app.post(
    '/workspaces/:workspace_id/tasks',
    { config: { lookup: 'workspace' }, schema: { params: WorkspaceParams, body: CreateBody, tags: ['workspace-tasks'], summary: 'Attach a run task to a workspace' } },
    async (request, reply) => {
      const { attributes: input, relationships } = request.body.data;
      const row = await workspaceTasksService.create(proofOf(request, 'workspace'), input, relationships?.task?.data.id);
      return sendDocument(reply, 201, { data: workspaceTaskResource(row) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { config: { lookup: 'workspace-task' }, schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Show a workspace run task' } },
    async (request, reply) => sendDocument(reply, 200, { data: workspaceTaskResource(proofOf(request, 'workspace-task').row) }),
  );

  app.patch(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { config: { lookup: 'workspace-task' }, schema: { params: AttachmentParams, body: UpdateBody, tags: ['workspace-tasks'], summary: 'Update a workspace run task' } },
    async (request, reply) => {
      const row = await workspaceTasksService.update(proofOf(request, 'workspace-task'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceTaskResource(row) });
    },
  );

  app.delete(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { config: { lookup: 'workspace-task' }, schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Detach a run task from a workspace' } },
    async (request, reply) => {
      await workspaceTasksService.delete(proofOf(request, 'workspace-task'));
      return sendNoContent(reply);
    },
  );
}
