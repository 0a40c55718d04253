import { Type } from '@sinclair/typebox';
import { auditTrailReaderOf } from '../caller.js';
import { JSONAPI_CONTENT_TYPE } from '../jsonapi.js';
import { paginationLinks, paginationMeta, parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { JsonApiQuery } from '../schemas.js';
import { auditTrailDocument } from '../serializers/audit-trail.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

/** HCP's audit trail entry, for the OpenAPI document (and the answer's serializer). */
const AuditTrailEntry = Type.Object({
  id: Type.String({ description: 'the entry (a UUID)' }),
  version: Type.String(),
  type: Type.String({ description: 'always Resource: a change to a resource' }),
  timestamp: Type.String({ description: 'when, UTC' }),
  auth: Type.Object({
    accessor_id: Type.Union([Type.String(), Type.Null()], { description: 'the user who acted (a team token: its service account), else the token id' }),
    description: Type.String({ description: 'the actor by name: a username, api-team_…, api-org_…, site-admin' }),
    type: Type.String({ description: 'Client' }),
    impersonator_id: NullableString,
    organization_id: Type.String(),
  }),
  request: Type.Object({ id: Type.Union([Type.String(), Type.Null()], { description: "the request's X-Request-Id" }) }),
  resource: Type.Object({
    id: Type.String(),
    type: Type.String({ description: 'team, organization_membership, authentication_token, task, workspace_task, run, task_stage' }),
    action: Type.String(),
    meta: Type.Unknown({ description: 'details: before and after where they matter; never a secret' }),
  }),
});

const AuditTrailList = Type.Object({
  data: Type.Array(AuditTrailEntry),
  pagination: Type.Object({
    current_page: Type.Integer(),
    prev_page: NullableInteger,
    next_page: NullableInteger,
    total_pages: Type.Integer(),
    total_count: Type.Integer(),
  }),
  links: Type.Record(Type.String(), NullableString),
  meta: Type.Object({
    pagination: Type.Object({
      'current-page': Type.Integer(),
      'page-size': Type.Integer(),
      'prev-page': NullableInteger,
      'next-page': NullableInteger,
      'total-pages': Type.Integer(),
      'total-count': Type.Integer(),
    }),
  }),
});

/** HCP's organization audit trail, read with the organization's audit trail token (`?token=audit-trails`). */
export async function auditTrailRoutes(app: TypedApp, services: Services): Promise<void> {
  const { auditTrailService, config } = services;

  app.get(
    '/organization/audit-trail',
    {
      config: { auditTrailToken: true },
      schema: {
        querystring: JsonApiQuery,
        response: { 200: AuditTrailList },
        tags: ['organizations'],
        summary:
          "The organization's audit trail, oldest first (HCP's shape): only the audit trail token reads it. " +
          'since (ISO 8601 time), page[number], page[size]; Teamstage adds filter[actor] (an actor name or id) and filter[type] (resource types, comma-separated)',
      },
    },
    async (request, reply) => {
      const query = request.query as Query;
      const organizationName = auditTrailService.organizationOf(auditTrailReaderOf(request));
      const page = await auditTrailService.list(organizationName, {
        since: query.since,
        actor: query['filter[actor]'],
        type: query['filter[type]'],
        page: parsePage(query),
      });
      const links = paginationLinks(config.baseUrl, request.url.split('?')[0]!, query, paginationMeta(page, page.total));
      return reply.code(200).type(JSONAPI_CONTENT_TYPE).send(auditTrailDocument(page, links));
    },
  );
}
