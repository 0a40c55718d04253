import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { workspaceResource } from '../serializers/workspaces.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import type { WorkspaceView } from '../../workspaces/workspaces.service.js';

const workspaceAttributes = {
  'auto-apply': Type.Optional(Type.Boolean()),
  description: NullableString(10_000),
  'working-directory': NullableString(1000),
  /** remote, agent or local: checked by the service, which names the allowed values. */
  'execution-mode': Type.Optional(Type.String({ maxLength: 100 })),
};
const CreateWorkspaceBody = resourceBody('workspaces', Type.Object({ name: Type.String({ maxLength: 1000 }), ...workspaceAttributes }));
const UpdateWorkspaceBody = resourceBody('workspaces', Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })), ...workspaceAttributes }), {
  attributesRequired: false,
});
const OrgParams = IdParam('organization_name');
const WorkspaceParams = IdParam('workspace_id');

const workspaceOf = (view: WorkspaceView) => workspaceResource(view.workspace, view.standing);

/** Workspaces: create, show by id or name, list, update, delete. */
export async function workspacesRoutes(app: TypedApp, services: Services): Promise<void> {
  const { workspacesService, config } = services;

  app.post(
    '/organizations/:organization_name/workspaces',
    { schema: { params: OrgParams, body: CreateWorkspaceBody, tags: ['workspaces'], summary: 'Create a workspace' } },
    async (request, reply) => {
      const data = await workspacesService.create(callerOf(request), request.params.organization_name, request.body.data.attributes);
      return sendDocument(reply, 201, { data: workspaceOf(data) });
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces',
    { schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: 'List workspaces' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const search = request.query['search[name]'] || undefined;
      const result = await workspacesService.list(callerOf(request), request.params.organization_name, { search, page });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, workspaceOf));
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      schema: {
        params: Type.Object({ organization_name: Type.String({ maxLength: 255 }), workspace_name: Type.String({ maxLength: 255 }) }),
        tags: ['workspaces'],
        summary: 'Show a workspace by name',
      },
    },
    async (request, reply) => {
      const data = await workspacesService.showByName(callerOf(request), request.params.organization_name, request.params.workspace_name);
      return sendDocument(reply, 200, { data: workspaceOf(data) });
    },
  );

  app.patch(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      schema: {
        params: Type.Object({ organization_name: Type.String({ maxLength: 255 }), workspace_name: Type.String({ maxLength: 255 }) }),
        body: UpdateWorkspaceBody,
        tags: ['workspaces'],
        summary: 'Update a workspace by name',
      },
    },
    async (request, reply) => {
      const { organization_name, workspace_name } = request.params;
      const updated = await workspacesService.updateByName(callerOf(request), organization_name, workspace_name, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceOf(updated) });
    },
  );

  app.get(
    '/workspaces/:workspace_id',
    { schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Show a workspace' } },
    async (request, reply) => sendDocument(reply, 200, { data: workspaceOf(await workspacesService.show(callerOf(request), request.params.workspace_id)) }),
  );

  app.patch(
    '/workspaces/:workspace_id',
    { schema: { params: WorkspaceParams, body: UpdateWorkspaceBody, tags: ['workspaces'], summary: 'Update a workspace (execution-mode among its settings)' } },
    async (request, reply) => {
      const updated = await workspacesService.update(callerOf(request), request.params.workspace_id, request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceOf(updated) });
    },
  );

  app.delete(
    '/workspaces/:workspace_id',
    { schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Delete a workspace, its runs and attachments' } },
    async (request, reply) => {
      await workspacesService.delete(callerOf(request), request.params.workspace_id);
      return sendNoContent(reply);
    },
  );
}
