import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { listParameter, type Query } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, NullableString, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import { ORGANIZATION_ACCESS_KEYS } from '../../access/organization-access.js';
import { TEAM_INCLUDES, type TeamAttributesInput } from '../../teams/teams.service.js';

const OrganizationAccessInput = Type.Object(
  Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, Type.Optional(Type.Boolean())])),
);

const teamAttributes = (nameRequired: boolean) =>
  Type.Object({
    name: nameRequired ? Type.String({ maxLength: 1000 }) : Type.Optional(Type.String({ maxLength: 1000 })),
    'sso-team-id': NullableString(255),
    visibility: Type.Optional(Type.Union([Type.Literal('secret'), Type.Literal('organization')])),
    'organization-access': Type.Optional(OrganizationAccessInput),
    'allow-member-token-management': Type.Optional(Type.Boolean()),
    'allow-team-token-management': Type.Optional(Type.Boolean()),
  });

const CreateTeamBody = resourceBody('teams', teamAttributes(true));
const UpdateTeamBody = resourceBody('teams', teamAttributes(false), { attributesRequired: false });
const OrgParams = IdParam('organization_name');
const TeamParams = IdParam('team_id');

/** Seed 4.1–4.5. */
export async function teamsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { teamsService, config } = services;

  app.get<{ Params: { organization_name: string }; Querystring: Query }>(
    '/organizations/:organization_name/teams',
    { schema: { params: OrgParams, tags: ['teams'], summary: 'List teams' } },
    async (request, reply) => {
      const query = request.query;
      const include = parseInclude(query, TEAM_INCLUDES);
      const page = parsePage(query);
      const names = query['filter[names]'] !== undefined ? listParameter(query['filter[names]']) : undefined;
      const result = await teamsService.list(callerOf(request), request.params.organization_name, {
        q: query.q || undefined,
        names,
        page,
        include,
      });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  app.post<{ Params: { organization_name: string }; Querystring: Query; Body: { data: { attributes: TeamAttributesInput & { name: string } } } }>(
    '/organizations/:organization_name/teams',
    { schema: { params: OrgParams, body: CreateTeamBody, tags: ['teams'], summary: 'Create a team' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      const document = await teamsService.create(callerOf(request), request.params.organization_name, request.body.data.attributes, include);
      return sendDocument(reply, 200, resourceDocument(document));
    },
  );

  app.get<{ Params: { team_id: string }; Querystring: Query }>(
    '/teams/:team_id',
    { schema: { params: TeamParams, tags: ['teams'], summary: 'Show a team' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      return sendDocument(reply, 200, resourceDocument(await teamsService.show(callerOf(request), request.params.team_id, include)));
    },
  );

  // An unknown or hidden team is 404 before the body is even parsed (an unparseable body would be a 422),
  // so the team is looked up in preParsing.
  app.patch<{ Params: { team_id: string }; Querystring: Query; Body: { data: { attributes?: TeamAttributesInput } } }>(
    '/teams/:team_id',
    {
      schema: { params: TeamParams, body: UpdateTeamBody, tags: ['teams'], summary: 'Update a team' },
      preParsing: async (request, _reply, payload) => {
        await teamsService.visibleTeam(callerOf(request), (request.params as { team_id: string }).team_id);
        return payload;
      },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      const attributes = request.body.data.attributes ?? {};
      return sendDocument(reply, 200, resourceDocument(await teamsService.update(callerOf(request), request.params.team_id, attributes, include)));
    },
  );

  app.delete<{ Params: { team_id: string } }>(
    '/teams/:team_id',
    { schema: { params: TeamParams, tags: ['teams'], summary: 'Delete a team' } },
    async (request, reply) => {
      await teamsService.delete(callerOf(request), request.params.team_id);
      return sendNoContent(reply);
    },
  );
}
