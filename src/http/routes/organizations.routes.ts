import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, OptionalString, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';

const CreateOrganizationBody = resourceBody(
  'organizations',
  Type.Object({ name: Type.String({ maxLength: 1000 }), email: Type.String({ maxLength: 1000 }) }),
);
const UpdateOrganizationBody = resourceBody('organizations', Type.Object({ name: OptionalString(1000), email: OptionalString(1000) }), {
  attributesRequired: false,
});
const SubscriptionBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String({ maxLength: 100 })),
    relationships: Type.Object({
      'feature-set': Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Optional(Type.String({ maxLength: 100 })) }) }),
    }),
  }),
});
const OrgParams = IdParam('organization_name');
type OrgParams = { organization_name: string };

/** Organizations, editions and entitlements (CONTRACT 3, 6). */
export async function organizationsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const organizations = services.organizationsService;

  app.post<{ Body: { data: { attributes: { name: string; email: string } } } }>(
    '/organizations',
    { schema: { body: CreateOrganizationBody, tags: ['organizations'] } },
    async (request, reply) => sendDocument(reply, 201, { data: await organizations.create(callerOf(request), request.body.data.attributes) }),
  );
  app.get<{ Querystring: Query }>('/organizations', { schema: { tags: ['organizations'] } }, async (request, reply) => {
    const page = parsePage(request.query);
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, page, await organizations.list(callerOf(request), page)));
  });
  app.get<{ Params: OrgParams }>('/organizations/:organization_name', { schema: { params: OrgParams, tags: ['organizations'] } }, async (request, reply) =>
    sendDocument(reply, 200, { data: await organizations.show(callerOf(request), request.params.organization_name) }),
  );
  app.patch<{ Params: OrgParams; Body: { data: { attributes?: { name?: string; email?: string } } } }>(
    '/organizations/:organization_name',
    {
      schema: { params: OrgParams, body: UpdateOrganizationBody, tags: ['organizations'] },
      preValidation: async (request) => {
        await organizations.show(callerOf(request), (request.params as OrgParams).organization_name);
      },
    },
    async (request, reply) =>
      sendDocument(reply, 200, {
        data: await organizations.update(callerOf(request), request.params.organization_name, request.body.data.attributes ?? {}),
      }),
  );
  app.delete<{ Params: OrgParams }>('/organizations/:organization_name', { schema: { params: OrgParams, tags: ['organizations'] } }, async (request, reply) => {
    await organizations.delete(callerOf(request), request.params.organization_name);
    return sendNoContent(reply);
  });

  app.get<{ Params: OrgParams }>(
    '/organizations/:organization_name/entitlement-set',
    { schema: { params: OrgParams, tags: ['editions'] } },
    async (request, reply) => sendDocument(reply, 200, { data: await organizations.entitlements(callerOf(request), request.params.organization_name) }),
  );
  app.get<{ Querystring: Query }>('/admin/feature-sets', { schema: { tags: ['editions'] } }, async (request, reply) => {
    const data = organizations.listFeatureSets(callerOf(request), request.query.q);
    const page = parsePage(request.query);
    return sendDocument(
      reply,
      200,
      listDocument(request, services.config.baseUrl, page, { data: data.slice(page.offset, page.offset + page.size), total: data.length }),
    );
  });
  app.post<{ Params: OrgParams; Body: { data: { relationships: { 'feature-set': { data: { id: string } } } } } }>(
    '/admin/organizations/:organization_name/subscription',
    { schema: { params: OrgParams, body: SubscriptionBody, tags: ['editions'] } },
    async (request, reply) =>
      sendDocument(reply, 201, {
        data: await organizations.subscribe(
          callerOf(request),
          request.params.organization_name,
          request.body.data.relationships['feature-set'].data.id,
        ),
      }),
  );
}
