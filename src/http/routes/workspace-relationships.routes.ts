import { Type } from '@sinclair/typebox';
import { slicePage } from '../../core/page.js';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery } from '../schemas.js';
import { workspaceResource } from '../serializers/workspaces.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { TagList, tagReferences } from './workspaces.routes.js';

const WorkspaceParams = IdParam('workspace_id');
const TagsBody = Type.Object({ data: TagList });
/** go-tfe sends whole workspace documents; only each one's id counts. */
const WorkspaceList = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 255 }) }), { maxItems: 500 }),
});

/**
 * A workspace's tags, remote state consumers and lock (HCP's relationships and actions, issue 37).
 */
export async function workspaceRelationshipsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { workspaceTagsService, remoteStateConsumersService, workspaceLockService, config } = services;
  const byId = { lookup: 'workspace' as const };

  app.get(
    '/workspaces/:workspace_id/relationships/tags',
    { config: byId, schema: { params: WorkspaceParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: "A workspace's tags, in the order they were added" } },
    async (request, reply) => {
      const tags = await workspaceTagsService.list(proofOf(request, 'workspace'));
      const page = slicePage(tags, parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, (tag) => ({ id: tag.id, type: 'tags', attributes: { name: tag.name } })));
    },
  );
  app.post(
    '/workspaces/:workspace_id/relationships/tags',
    { config: byId, schema: { params: WorkspaceParams, body: TagsBody, tags: ['workspaces'], summary: 'Add tags to a workspace, by id or by name (a new name makes the tag)' } },
    async (request, reply) => {
      await workspaceTagsService.add(proofOf(request, 'workspace'), tagReferences(request.body.data));
      return sendNoContent(reply);
    },
  );
  app.delete(
    '/workspaces/:workspace_id/relationships/tags',
    { config: byId, schema: { params: WorkspaceParams, body: TagsBody, tags: ['workspaces'], summary: 'Remove tags from a workspace, by id or by name' } },
    async (request, reply) => {
      await workspaceTagsService.remove(proofOf(request, 'workspace'), tagReferences(request.body.data));
      return sendNoContent(reply);
    },
  );

  const consumers = '/workspaces/:workspace_id/relationships/remote-state-consumers';
  app.get(
    consumers,
    { config: byId, schema: { params: WorkspaceParams, querystring: JsonApiQuery, tags: ['workspaces'], summary: 'The workspaces that may read this one\'s state (recorded only: Teamstage keeps no state)' } },
    async (request, reply) => {
      const found = proofOf(request, 'workspace');
      const page = await remoteStateConsumersService.list(found, parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, (row) => workspaceResource(row, found.context.standing)));
    },
  );
  for (const [method, how] of [['post', 'add'], ['delete', 'remove'], ['patch', 'replace']] as const) {
    app[method](
      consumers,
      { config: byId, schema: { params: WorkspaceParams, body: WorkspaceList, tags: ['workspaces'], summary: `Remote state consumers: ${how}` } },
      async (request, reply) => {
        await remoteStateConsumersService.change(proofOf(request, 'workspace'), how, request.body.data.map((item) => item.id));
        return sendNoContent(reply);
      },
    );
  }

  /**
   * HCP's lock takes an optional reason, `{"reason": …}` in its API documentation; go-tfe sends it as a document
   * of no type (`{"data":{"type":"","attributes":{"reason":…}}}`), and its unlocks send nothing. Anything else is a 422.
   */
  const LockBody = Type.Object(
    {
      reason: Type.Optional(Type.String({ maxLength: 1000 })),
      data: Type.Optional(
        Type.Object(
          {
            type: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('workspaces')])),
            attributes: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  );
  app.post(
    '/workspaces/:workspace_id/actions/lock',
    { config: byId, schema: { params: WorkspaceParams, body: LockBody, tags: ['workspaces'], summary: 'Lock a workspace: runs may be queued, none starts until it is unlocked (409 when locked)' } },
    async (request, reply) => {
      const found = proofOf(request, 'workspace');
      const row = await workspaceLockService.lock(found);
      return sendDocument(reply, 200, { data: workspaceResource(row, found.context.standing) });
    },
  );
  for (const [action, force] of [['unlock', false], ['force-unlock', true]] as const) {
    app.post(
      `/workspaces/:workspace_id/actions/${action}`,
      {
        config: byId,
        schema: {
          params: WorkspaceParams,
          body: LockBody,
          tags: ['workspaces'],
          summary: force ? 'Unlock a workspace whoever locked it (its managers)' : 'Unlock a workspace the caller locked (409 when another holds it)',
        },
      },
      async (request, reply) => {
        const found = proofOf(request, 'workspace');
        const row = await workspaceLockService.unlock(found, force);
        return sendDocument(reply, 200, { data: workspaceResource(row, found.context.standing) });
      },
    );
  }
}
