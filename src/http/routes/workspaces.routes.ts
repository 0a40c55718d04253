import { Type, type Static } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { workspaceResource } from '../serializers/workspaces.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import type { WorkspaceView } from '../../workspaces/workspaces.service.js';
import type { OrganizationRow } from '../../organizations/organizations.repository.js';
import { organizationResource } from '../serializers/organizations.serializer.js';
import { parseInclude } from '../include.js';
import type { Query } from '../querystring.js';
import { workspaceListFilter } from '../workspace-list-query.js';
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
  /** HCP's older switch: false is execution-mode local. */
  operations: Type.Optional(Type.Boolean()),
  /** Stored and echoed: Teamstage queues no destroy on a schedule. */
  'auto-destroy-at': NullableString(100),
  /** HCP: `execution-mode: false` makes the workspace follow its organization's default execution mode. */
  'setting-overwrites': Type.Optional(Type.Object({ 'execution-mode': Type.Optional(Type.Boolean()), 'agent-pool': Type.Optional(Type.Boolean()) })),
  /** HCP: the agent pool of an agent-mode workspace; its agent tokens drive this workspace's runs (issue 36). */
  'agent-pool-id': NullableString(255),
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
/** HCP's `tags` relationship: each tag by id or by name (`attributes.name`). */
/** A tag named by its id or by its name, typed `tags` as go-tfe sends it (anything else is a 422, not a no-op). */
const TagReference = Type.Union([
  Type.Object({
    type: Type.Literal('tags'),
    id: Type.String({ minLength: 1, maxLength: 255 }),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })) })),
  }),
  Type.Object({
    type: Type.Literal('tags'),
    id: Type.Optional(Type.String({ maxLength: 255 })),
    attributes: Type.Object({ name: Type.String({ minLength: 1, maxLength: 1000 }) }),
  }),
]);
export const TagList = Type.Array(TagReference, { maxItems: 100 });
const WorkspaceRelationships = Type.Object({
  tags: Type.Optional(Type.Object({ data: TagList })),
  /** HCP: the project it is created in or moved to. */
  project: Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal('projects') }) })),
});
const CreateWorkspaceBody = resourceBody('workspaces', Type.Object({ name: Type.String({ maxLength: 1000 }), ...workspaceAttributes }), {
  relationships: WorkspaceRelationships,
});
const NamedWorkspaceParams = Type.Object({ organization_name: Type.String({ maxLength: 255 }), workspace_name: Type.String({ maxLength: 255 }) });
const UpdateWorkspaceBody = resourceBody('workspaces', Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })), ...workspaceAttributes }), {
  attributesRequired: false,
  relationships: WorkspaceRelationships,
});
/** What `include` may name on a workspace (HCP offers more; Teamstage serves these). */
const WORKSPACE_INCLUDES = ['organization'] as const;

/** Tag references as the services take them: an id, or a name. */
export const tagReferences = (data: Static<typeof TagList>) => data.map((tag) => (tag.id ? { id: tag.id } : { name: tag.attributes?.name }));
const OrgParams = IdParam('organization_name');
const WorkspaceParams = IdParam('workspace_id');

const workspaceOf = (view: WorkspaceView) => workspaceResource(view.workspace, view.standing, view.runsCount);

/** The document of one workspace, its organization in `included` when asked. */
function workspaceDocument(view: WorkspaceView, organization: OrganizationRow, query: Query) {
  const include = parseInclude(query, WORKSPACE_INCLUDES);
  return { data: workspaceOf(view), ...(include.has('organization') ? { included: [organizationResource(organization, view.standing)] } : {}) };
}

/** Workspaces: create, show by id or name, list, update, delete. */
export async function workspacesRoutes(app: TypedApp, services: Services): Promise<void> {
  const { workspacesService, config } = services;

  app.post(
    '/organizations/:organization_name/workspaces',
    {
      config: { lookup: 'organization', includes: WORKSPACE_INCLUDES },
      schema: { params: OrgParams, querystring: JsonApiQuery, body: CreateWorkspaceBody, tags: ['workspaces'], summary: 'Create a workspace' },
    },
    async (request, reply) => {
      const { attributes, relationships } = request.body.data;
      const tags = relationships?.tags ? tagReferences(relationships.tags.data) : undefined;
      const found = proofOf(request, 'organization');
      const data = await workspacesService.create(found, attributes, tags, relationships?.project?.data.id);
      return sendDocument(reply, 201, workspaceDocument(data, found.organization, request.query));
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces',
    {
      config: { lookup: 'organization', includes: WORKSPACE_INCLUDES },
      schema: {
        params: OrgParams,
        querystring: JsonApiQuery,
        tags: ['workspaces'],
        summary: 'List workspaces',
        description:
          "HCP's search[name] (part of the name), search[wildcard-name] (* at the start, the end or both), search[tags] and " +
          'search[exclude-tags] (comma-separated names), filter[current-run][status] (any of), filter[project][id], sort (name, current-run.created-at; - for descending), include=organization.',
      },
    },
    async (request, reply) => {
      const page = parsePage(request.query);
      const include = parseInclude(request.query, WORKSPACE_INCLUDES);
      const found = proofOf(request, 'organization');
      const result = await workspacesService.list(found, { filter: workspaceListFilter(request.query), page });
      const included = include.has('organization') && result.items.length > 0 ? [organizationResource(found.organization, found.standing)] : [];
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, workspaceOf, included));
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      config: { lookup: 'workspace-by-name', includes: WORKSPACE_INCLUDES },
      schema: { params: NamedWorkspaceParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: 'Show a workspace by name' },
    },
    async (request, reply) => {
      const found = proofOf(request, 'workspace-by-name');
      return sendDocument(reply, 200, workspaceDocument(await workspacesService.show(found), found.context.organization, request.query));
    },
  );

  app.patch(
    '/organizations/:organization_name/workspaces/:workspace_name',
    {
      config: { lookup: 'workspace-by-name' },
      schema: { params: NamedWorkspaceParams, body: UpdateWorkspaceBody, tags: ['workspaces'], summary: 'Update a workspace by name' },
    },
    async (request, reply) => {
      const found = proofOf(request, 'workspace-by-name');
      const { attributes, relationships } = request.body.data;
      const tags = relationships?.tags ? tagReferences(relationships.tags.data) : undefined;
      const updated = await workspacesService.update(found, attributes ?? {}, tags, relationships?.project?.data.id);
      return sendDocument(reply, 200, { data: workspaceOf(updated) });
    },
  );

  app.get(
    '/workspaces/:workspace_id',
    { config: { lookup: 'workspace', includes: WORKSPACE_INCLUDES }, schema: { params: WorkspaceParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: 'Show a workspace' } },
    async (request, reply) => {
      const found = proofOf(request, 'workspace');
      return sendDocument(reply, 200, workspaceDocument(await workspacesService.show(found), found.context.organization, request.query));
    },
  );

  app.patch(
    '/workspaces/:workspace_id',
    {
      config: { lookup: 'workspace' },
      schema: { params: WorkspaceParams, body: UpdateWorkspaceBody, tags: ['workspaces'], summary: 'Update a workspace (execution-mode among its settings)' },
    },
    async (request, reply) => {
      const found = proofOf(request, 'workspace');
      const { attributes, relationships } = request.body.data;
      const tags = relationships?.tags ? tagReferences(relationships.tags.data) : undefined;
      const updated = await workspacesService.update(found, attributes ?? {}, tags, relationships?.project?.data.id);
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
      schema: { params: NamedWorkspaceParams, tags: ['workspaces'], summary: 'Safe-delete a workspace by name: as delete (a workspace here never manages resources), refused while it is locked (409)' },
    },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace-by-name'), { safe: true });
      return sendNoContent(reply);
    },
  );

  app.post(
    '/workspaces/:workspace_id/actions/safe-delete',
    {
      config: { lookup: 'workspace' },
      schema: { params: WorkspaceParams, tags: ['workspaces'], summary: 'Safe-delete a workspace: as delete (a workspace here never manages resources), refused while it is locked (409)' },
    },
    async (request, reply) => {
      await workspacesService.delete(proofOf(request, 'workspace'), { safe: true });
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
