import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { workspaceResource } from '../serializers/workspaces.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import type { WorkspaceView } from '../../workspaces/workspaces.service.js';
import { FLAG_SETTINGS, LIST_SETTINGS, TEXT_SETTINGS } from '../../workspaces/workspace-settings.js';

const workspaceAttributes = {
  'auto-apply': Type.Optional(Type.Boolean()),
  description: NullableString(10_000),
  'working-directory': NullableString(1000),
  /** remote, agent or local: checked by the service, which names the allowed values. */
  'execution-mode': Type.Optional(Type.String({ maxLength: 100 })),
  /** Teamstage's (issue 27): checked by the service (a whole number from 1 to 10). */
  'required-approvals': Type.Optional(
    Type.Number({
      description:
        "Teamstage's: how many distinct people must override a task stage of this workspace's runs before it moves on (1 to 10, default 1). " +
        "A stage needs the most of this and its failed mandatory workspace tasks' own required-approvals; one person counts once. " +
        'Runs keep the number their workspace had when they were created.',
    }),
  ),
  /** Teamstage's (issue 34): HCP's "prevent self-approval" idea. */
  'prevent-self-approval': Type.Optional(
    Type.Boolean({
      description:
        "Teamstage's: where a task stage of this workspace's runs needs more than one approval, the run's author may not give one (default true). " +
        'Read when approvals are counted, so a change applies to runs already waiting.',
    }),
  ),
  // Stored and returned only (src/workspaces/workspace-settings.ts): what the tfe provider sets.
  ...Object.fromEntries(Object.keys(FLAG_SETTINGS).map((key) => [key, Type.Optional(Type.Boolean())])),
  ...Object.fromEntries(Object.keys(LIST_SETTINGS).map((key) => [key, Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 }))])),
  ...Object.fromEntries(Object.keys(TEXT_SETTINGS).map((key) => [key, NullableString(1000)])),
};
const CreateWorkspaceBody = resourceBody('workspaces', Type.Object({ name: Type.String({ maxLength: 1000 }), ...workspaceAttributes }));
const NamedWorkspaceParams = Type.Object({ organization_name: Type.String({ maxLength: 255 }), workspace_name: Type.String({ maxLength: 255 }) });
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
    { config: { lookup: 'organization' }, schema: { params: OrgParams, body: CreateWorkspaceBody, tags: ['workspaces'], summary: 'Create a workspace' } },
    async (request, reply) => {
      const data = await workspacesService.create(proofOf(request, 'organization'), request.body.data.attributes);
      return sendDocument(reply, 201, { data: workspaceOf(data) });
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces',
    { config: { lookup: 'organization' }, schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: 'List workspaces' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const search = request.query['search[name]'] || undefined;
      const result = await workspacesService.list(proofOf(request, 'organization'), { search, page });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, workspaceOf));
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      config: { lookup: 'workspace-by-name' },
      schema: { params: NamedWorkspaceParams, tags: ['workspaces'], summary: 'Show a workspace by name' },
    },
    async (request, reply) => sendDocument(reply, 200, { data: workspaceOf(workspacesService.show(proofOf(request, 'workspace-by-name'))) }),
  );

  app.patch(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      config: { lookup: 'workspace-by-name' },
      schema: { params: NamedWorkspaceParams, body: UpdateWorkspaceBody, tags: ['workspaces'], summary: 'Update a workspace by name' },
    },
    async (request, reply) => {
      const updated = await workspacesService.update(proofOf(request, 'workspace-by-name'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceOf(updated) });
    },
  );

  app.get(
    '/workspaces/:workspace_id',
    { config: { lookup: 'workspace' }, schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Show a workspace' } },
    async (request, reply) => sendDocument(reply, 200, { data: workspaceOf(workspacesService.show(proofOf(request, 'workspace'))) }),
  );

  app.patch(
    '/workspaces/:workspace_id',
    {
      config: { lookup: 'workspace' },
      schema: { params: WorkspaceParams, body: UpdateWorkspaceBody, tags: ['workspaces'], summary: 'Update a workspace (execution-mode among its settings)' },
    },
    async (request, reply) => {
      const updated = await workspacesService.update(proofOf(request, 'workspace'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: workspaceOf(updated) });
    },
  );

  app.delete(
    '/organizations/:organization_name/workspaces/:workspace_name',
    { config: { lookup: 'workspace-by-name' }, schema: { params: NamedWorkspaceParams, tags: ['workspaces'], summary: 'Delete a workspace by name' } },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace-by-name'));
      return sendNoContent(reply);
    },
  );

  app.post(
    '/organizations/:organization_name/workspaces/:workspace_name/actions/safe-delete',
    {
      config: { lookup: 'workspace-by-name' },
      schema: { params: NamedWorkspaceParams, tags: ['workspaces'], summary: 'Safe-delete a workspace by name: as delete, since a workspace here never manages resources' },
    },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace-by-name'));
      return sendNoContent(reply);
    },
  );

  app.post(
    '/workspaces/:workspace_id/actions/safe-delete',
    {
      config: { lookup: 'workspace' },
      schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Safe-delete a workspace: as delete, since a workspace here never manages resources' },
    },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace'));
      return sendNoContent(reply);
    },
  );

  app.delete(
    '/workspaces/:workspace_id',
    { config: { lookup: 'workspace' }, schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Delete a workspace, its runs and attachments' } },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace'));
      return sendNoContent(reply);
    },
  );
}
