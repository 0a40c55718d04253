import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, NullableString, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import type { WorkspaceAttributesInput } from '../../workspaces/workspaces.service.js';

const CreateWorkspaceBody = resourceBody(
  'workspaces',
  Type.Object({
    name: Type.String({ maxLength: 1000 }),
    'auto-apply': Type.Optional(Type.Boolean()),
    description: NullableString(10_000),
    'working-directory': NullableString(1000),
  }),
);
const OrgParams = IdParam('organization_name');
const WorkspaceParams = IdParam('workspace_id');

/** Workspaces (CONTRACT 7). */
export async function workspacesRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { workspacesService, config } = services;

  app.post<{ Params: { organization_name: string }; Body: { data: { attributes: WorkspaceAttributesInput } } }>(
    '/organizations/:organization_name/workspaces',
    { schema: { params: OrgParams, body: CreateWorkspaceBody, tags: ['workspaces'], summary: 'Create a workspace' } },
    async (request, reply) => {
      const data = await workspacesService.create(callerOf(request), request.params.organization_name, request.body.data.attributes);
      return sendDocument(reply, 201, { data });
    },
  );

  app.get<{ Params: { organization_name: string }; Querystring: Query }>(
    '/organizations/:organization_name/workspaces',
    { schema: { params: OrgParams, tags: ['workspaces'], summary: 'List workspaces' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const search = request.query['search[name]'] || undefined;
      const result = await workspacesService.list(callerOf(request), request.params.organization_name, { search, page });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  app.get<{ Params: { organization_name: string; workspace_name: string } }>(
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
      return sendDocument(reply, 200, { data });
    },
  );

  app.get<{ Params: { workspace_id: string } }>(
    '/workspaces/:workspace_id',
    { schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Show a workspace' } },
    async (request, reply) => sendDocument(reply, 200, { data: await workspacesService.show(callerOf(request), request.params.workspace_id) }),
  );

  app.delete<{ Params: { workspace_id: string } }>(
    '/workspaces/:workspace_id',
    { schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Delete a workspace, its runs and attachments' } },
    async (request, reply) => {
      await workspacesService.delete(callerOf(request), request.params.workspace_id);
      return sendNoContent(reply);
    },
  );
}
