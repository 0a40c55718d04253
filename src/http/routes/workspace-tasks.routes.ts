import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import type { WorkspaceTaskAttributesInput } from '../../runtasks/workspace-tasks.service.js';

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

type CreateBody = { data: { attributes: WorkspaceTaskAttributesInput; relationships?: { task?: { data: { id: string } } } } };
type Params = { workspace_id: string; workspace_task_id: string };

/** Workspace run task attachments, type `workspace-tasks` (CONTRACT 7). */
export async function workspaceTasksRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { workspaceTasksService, config } = services;

  app.get<{ Params: { workspace_id: string }; Querystring: Query }>(
    '/workspaces/:workspace_id/tasks',
    { schema: { params: WorkspaceParams, tags: ['workspace-tasks'], summary: 'List the run tasks of a workspace' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await workspaceTasksService.list(callerOf(request), request.params.workspace_id, page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  app.post<{ Params: { workspace_id: string }; Body: CreateBody }>(
    '/workspaces/:workspace_id/tasks',
    { schema: { params: WorkspaceParams, body: CreateBody, tags: ['workspace-tasks'], summary: 'Attach a run task to a workspace' } },
    async (request, reply) => {
      const { attributes: input, relationships } = request.body.data;
      const data = await workspaceTasksService.create(callerOf(request), request.params.workspace_id, input, relationships?.task?.data.id);
      return sendDocument(reply, 201, { data });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Show a workspace run task' } },
    async (request, reply) => {
      const data = await workspaceTasksService.show(callerOf(request), request.params.workspace_id, request.params.workspace_task_id);
      return sendDocument(reply, 200, { data });
    },
  );

  app.patch<{ Params: Params; Body: { data: { attributes?: WorkspaceTaskAttributesInput } } }>(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    {
      schema: { params: AttachmentParams, body: UpdateBody, tags: ['workspace-tasks'], summary: 'Update a workspace run task' },
      preValidation: async (request) => {
        const params = request.params as Params;
        await workspaceTasksService.visible(callerOf(request), params.workspace_id, params.workspace_task_id);
      },
    },
    async (request, reply) => {
      const { workspace_id, workspace_task_id } = request.params;
      const data = await workspaceTasksService.update(callerOf(request), workspace_id, workspace_task_id, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data });
    },
  );

  app.delete<{ Params: Params }>(
    '/workspaces/:workspace_id/tasks/:workspace_task_id',
    { schema: { params: AttachmentParams, tags: ['workspace-tasks'], summary: 'Detach a run task from a workspace' } },
    async (request, reply) => {
      await workspaceTasksService.delete(callerOf(request), request.params.workspace_id, request.params.workspace_task_id);
      return sendNoContent(reply);
    },
  );
}
