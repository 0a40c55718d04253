import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { listParameter } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { teamDetailsResource, teamIncluded } from '../serializers/teams.serializer.js';
import { membershipResource } from '../serializers/memberships.serializer.js';
import { slicePage } from '../../core/page.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { ORGANIZATION_ACCESS_KEYS } from '../../access/organization-access.js';
import { TEAM_INCLUDES, type TeamResult } from '../../teams/teams.service.js';

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

const teamDocument = (result: TeamResult) =>
  resourceDocument({ data: teamDetailsResource(result.team), included: teamIncluded(result.related) });

/** Teams: list, create, show, update, delete. */
export async function teamsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { teamsService, config } = services;
  app.get(
    '/organizations/:organization_name/teams',
    { config: { includes: TEAM_INCLUDES, lookup: 'organization' }, schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['teams'], summary: 'List teams' } },
    async (request, reply) => {
      const query = request.query;
      const include = parseInclude(query, TEAM_INCLUDES);
      const page = parsePage(query);
      const names = query['filter[names]'] !== undefined ? listParameter(query['filter[names]']) : undefined;
      const result = await teamsService.list(proofOf(request, 'organization'), {
        q: query.q || undefined,
        names,
        page,
        include,
      });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, teamDetailsResource, teamIncluded(result.related)));
    },
  );

  app.post(
    '/organizations/:organization_name/teams',
    {
      config: { includes: TEAM_INCLUDES, lookup: 'organization' },
      schema: { params: OrgParams, querystring: JsonApiQuery, body: CreateTeamBody, tags: ['teams'], summary: 'Create a team' },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      const result = await teamsService.create(proofOf(request, 'organization'), request.body.data.attributes, include);
      return sendDocument(reply, 200, teamDocument(result));
    },
  );

  app.get(
    '/teams/:team_id',
    { config: { includes: TEAM_INCLUDES, lookup: 'team' }, schema: { params: TeamParams, querystring: JsonApiQuery, tags: ['teams'], summary: 'Show a team' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      return sendDocument(reply, 200, teamDocument(await teamsService.show(proofOf(request, 'team'), include)));
    },
  );

  // HCP's relationship read (the tfe provider v0.80's tfe_team_organization_members reads it): the team's
  // organization memberships, invited ones too, as full documents, paginated.
  app.get(
    '/teams/:team_id/relationships/organization-memberships',
    { config: { lookup: 'team' }, schema: { params: TeamParams, querystring: JsonApiQuery, tags: ['teams'], summary: "A team's organization memberships (invited ones too)" } },
    async (request, reply) => {
      const { related } = await teamsService.show(proofOf(request, 'team'), new Set(['organization-memberships'] as const));
      const page = slicePage(related.memberships, parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, page, membershipResource));
    },
  );

  app.patch(
    '/teams/:team_id',
    { config: { includes: TEAM_INCLUDES, lookup: 'team' }, schema: { params: TeamParams, querystring: JsonApiQuery, body: UpdateTeamBody, tags: ['teams'], summary: 'Update a team' } },
    async (request, reply) => {
      const include = parseInclude(request.query, TEAM_INCLUDES);
      const attributes = request.body.data.attributes ?? {};
      return sendDocument(reply, 200, teamDocument(await teamsService.update(proofOf(request, 'team'), attributes, include)));
    },
  );

  app.delete(
    '/teams/:team_id',
    { config: { lookup: 'team' }, schema: { params: TeamParams, tags: ['teams'], summary: 'Delete a team' } },
    async (request, reply) => {
      await teamsService.delete(proofOf(request, 'team'));
      return sendNoContent(reply);
    },
  );
}
