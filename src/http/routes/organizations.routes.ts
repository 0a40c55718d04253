import { Type } from '@sinclair/typebox';
import { slicePage } from '../../core/page.js';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, OptionalString, resourceBody } from '../schemas.js';
import {
  entitlementSetResource, featureSetResource, organizationResource, subscriptionResource,
} from '../serializers/organizations.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { OrganizationView } from '../../organizations/organizations.service.js';
import { FLAG_SETTINGS, NUMBER_SETTINGS, TEXT_SETTINGS } from '../../organizations/organization-settings.js';
import type { Services } from '../../services.js';

/** HCP's settings, on create and update alike. */
const settingsAttributes = {
  /** remote, agent or local: workspaces that set no mode of their own follow it. */
  'default-execution-mode': OptionalString(100),
  // HCP's other settings, stored and echoed (src/organizations/organization-settings.ts).
  ...Object.fromEntries(Object.keys(FLAG_SETTINGS).map((key) => [key, Type.Optional(Type.Boolean())])),
  ...Object.fromEntries(Object.keys(NUMBER_SETTINGS).map((key) => [key, Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 }))])),
  ...Object.fromEntries(Object.keys(TEXT_SETTINGS).map((key) => [key, Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]))])),
};
const CreateOrganizationBody = resourceBody(
  'organizations',
  Type.Object({ name: Type.String({ maxLength: 1000 }), email: Type.String({ maxLength: 1000 }), ...settingsAttributes }),
);
const UpdateOrganizationBody = resourceBody(
  'organizations',
  Type.Object({
    name: OptionalString(1000),
    email: OptionalString(1000),
    ...settingsAttributes,
  }),
  { attributesRequired: false },
);
const SubscriptionBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String({ maxLength: 100 })),
    relationships: Type.Object({
      'feature-set': Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Optional(Type.String({ maxLength: 100 })) }) }),
    }),
  }),
});
const OrgParams = IdParam('organization_name');

const organizationOf = (view: OrganizationView) => organizationResource(view.organization, view.standing);

/** Organizations, editions and entitlements. */
export async function organizationsRoutes(app: TypedApp, services: Services): Promise<void> {
  const organizations = services.organizationsService;

  app.post(
    '/organizations',
    { schema: { body: CreateOrganizationBody, tags: ['organizations'] } },
    async (request, reply) =>
      sendDocument(reply, 201, { data: organizationOf(await organizations.create(callerOf(request), request.body.data.attributes)) }),
  );
  app.get('/organizations', { schema: { querystring: JsonApiQuery, tags: ['organizations'] } }, async (request, reply) => {
    const page = parsePage(request.query);
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, await organizations.list(callerOf(request), page), organizationOf));
  });
  const byName = { config: { lookup: 'organization' as const } };
  app.get('/organizations/:organization_name', { ...byName, schema: { params: OrgParams, tags: ['organizations'] } }, async (request, reply) =>
    sendDocument(reply, 200, { data: organizationOf(organizations.show(proofOf(request, 'organization'))) }),
  );
  app.patch(
    '/organizations/:organization_name',
    { ...byName, schema: { params: OrgParams, body: UpdateOrganizationBody, tags: ['organizations'] } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: organizationOf(await organizations.update(proofOf(request, 'organization'), request.body.data.attributes ?? {})) }),
  );
  app.delete('/organizations/:organization_name', { ...byName, schema: { params: OrgParams, tags: ['organizations'] } }, async (request, reply) => {
    await organizations.delete(proofOf(request, 'organization'));
    return sendNoContent(reply);
  });

  app.get(
    '/organizations/:organization_name/entitlement-set',
    { ...byName, schema: { params: OrgParams, tags: ['editions'] } },
    async (request, reply) => {
      const { organization, featureSet } = organizations.entitlements(proofOf(request, 'organization'));
      return sendDocument(reply, 200, { data: entitlementSetResource(organization, featureSet) });
    },
  );
  app.get('/admin/feature-sets', { schema: { querystring: JsonApiQuery, tags: ['editions'] } }, async (request, reply) => {
    const featureSets = organizations.listFeatureSets(callerOf(request), request.query.q);
    const page = parsePage(request.query);
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, slicePage(featureSets, page), featureSetResource));
  });
  app.post(
    '/admin/organizations/:organization_name/subscription',
    { config: { lookup: 'subscribed-organization' }, schema: { params: OrgParams, body: SubscriptionBody, tags: ['editions'] } },
    async (request, reply) => {
      const featureSetId = request.body.data.relationships['feature-set'].data.id;
      const { organization, featureSet } = await organizations.subscribe(proofOf(request, 'subscribed-organization'), featureSetId);
      return sendDocument(reply, 201, { data: subscriptionResource(organization, featureSet) });
    },
  );
}
