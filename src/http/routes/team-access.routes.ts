import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { teamAccessResource } from '../serializers/team-access.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

/** The values are checked by the grant's own rule (access/workspace-access.ts), which answers HCP's sentences. */
const Key = Type.Optional(Type.Unknown());
const attributes = Type.Object({
  access: Key, runs: Key, variables: Key, 'state-versions': Key, 'sentinel-mocks': Key, 'workspace-locking': Key, 'run-tasks': Key, 'policy-overrides': Key,
});
const relationship = (type: string) => Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal(type) }) }));
const CreateBody = resourceBody('team-workspaces', attributes, {
  relationships: Type.Object({ team: relationship('teams'), workspace: relationship('workspaces') }),
});
const UpdateBody = resourceBody('team-workspaces', attributes, { attributesRequired: false });
const Params = IdParam('team_access_id');

/** HCP's team access API: a team's access to one workspace, type `team-workspaces`. */
export async function teamAccessRoutes(app: TypedApp, services: Services): Promise<void> {
  const { teamAccessService, config } = services;
  app.get(
    '/team-workspaces',
    { schema: { querystring: JsonApiQuery, tags: ['team-access'], summary: 'List team access to a workspace (filter[workspace][id]) or of a team (filter[team][id])' } },
    async (request, reply) => {
      const query = request.query;
      const result = await teamAccessService.list(
        callerOf(request),
        { workspaceId: query['filter[workspace][id]'] || undefined, teamId: query['filter[team][id]'] || undefined },
        parsePage(query),
      );
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, teamAccessResource));
    },
  );

  app.post(
    '/team-workspaces',
    { schema: { body: CreateBody, tags: ['team-access'], summary: 'Give a team access to a workspace' } },
    async (request, reply) => {
      const { attributes: input, relationships } = request.body.data;
      const row = await teamAccessService.create(callerOf(request), input, relationships?.team?.data.id, relationships?.workspace?.data.id);
      return sendDocument(reply, 201, { data: teamAccessResource(row) });
    },
  );

  app.get(
    '/team-workspaces/:team_access_id',
    { config: { lookup: 'team-access' }, schema: { params: Params, tags: ['team-access'], summary: 'Show a team access' } },
    async (request, reply) => sendDocument(reply, 200, { data: teamAccessResource(proofOf(request, 'team-access').row) }),
  );

  app.patch(
    '/team-workspaces/:team_access_id',
    { config: { lookup: 'team-access' }, schema: { params: Params, body: UpdateBody, tags: ['team-access'], summary: 'Change a team access' } },
    async (request, reply) => {
      const row = await teamAccessService.update(proofOf(request, 'team-access'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: teamAccessResource(row) });
    },
  );

  app.delete(
    '/team-workspaces/:team_access_id',
    { config: { lookup: 'team-access' }, schema: { params: Params, tags: ['team-access'], summary: 'Remove a team access' } },
    async (request, reply) => {
      await teamAccessService.delete(proofOf(request, 'team-access'));
      return sendNoContent(reply);
    },
  );
}
