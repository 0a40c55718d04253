import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, identifierListBody, resourceBody } from '../schemas.js';
import { policyResource, policySetResource } from '../serializers/policies.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { Errors } from '../../core/errors.js';
import type { PolicySetRelations } from '../../policies/policies.repository.js';
import type { Services } from '../../services.js';
import type { OrganizationContext } from '../../access/organization-gate.js';
import type { PolicySetView } from '../../policies/policies.service.js';
import { parseInclude } from '../include.js';
import type { Resource } from '../jsonapi.js';
import type { Query } from '../querystring.js';
import { workspaceResource } from '../serializers/workspaces.serializer.js';
import { policySetVersionResource } from '../serializers/policy-set-versions.serializer.js';

/** What `include` may name on policy sets (HCP's projects are not served here). */
const POLICY_SET_INCLUDES = ['workspaces', 'workspace-exclusions', 'newest-version', 'current-version'] as const;

const Enforce = Type.Optional(
  Type.Array(Type.Object({ path: NullableString(1000), mode: NullableString(100) }), { maxItems: 10 }),
);
const policyAttributes = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  description: NullableString(10_000),
  kind: Type.Optional(Type.String({ maxLength: 100 })),
  query: Type.Optional(Type.String({ maxLength: 10_000 })),
  'enforcement-level': Type.Optional(Type.String({ maxLength: 100 })),
  enforce: Enforce,
});
const CreatePolicyBody = resourceBody('policies', policyAttributes);
const UpdatePolicyBody = resourceBody('policies', policyAttributes, { attributesRequired: false });

const identifiers = (type: string) =>
  Type.Optional(Type.Object({ data: Type.Array(Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal(type) }), { maxItems: 500 }) }));
const setAttributes = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  description: NullableString(10_000),
  kind: Type.Optional(Type.String({ maxLength: 100 })),
  global: Type.Optional(Type.Boolean()),
  overridable: Type.Optional(Type.Boolean()),
});
const CreateSetBody = resourceBody('policy-sets', setAttributes, {
  relationships: Type.Object({
    policies: identifiers('policies'),
    workspaces: identifiers('workspaces'),
    'workspace-exclusions': identifiers('workspaces'),
  }),
});
const UpdateSetBody = resourceBody('policy-sets', setAttributes, { attributesRequired: false });

const OrgParams = IdParam('organization_name');
const PolicyParams = IdParam('policy_id');
const SetParams = IdParam('policy_set_id');

/** The relationship endpoints of a policy set and the relation each one changes. */
const SET_RELATIONS = [
  { path: 'policies', type: 'policies', key: 'policyIds' },
  { path: 'workspaces', type: 'workspaces', key: 'workspaceIds' },
  { path: 'workspace-exclusions', type: 'workspaces', key: 'excludedWorkspaceIds' },
] as const satisfies ReadonlyArray<{ path: string; type: string; key: keyof PolicySetRelations }>;

async function readRego(payload: IncomingMessage, declaredLength: string | undefined, maxBytes: number): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw Errors.policyTooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw Errors.policyTooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** HCP's policy API: policies (with upload and download of their text; Sentinel ones stored, never run) and policy sets with their relationships. */
export async function policiesRoutes(app: TypedApp, services: Services): Promise<void> {
  const { policiesService, config, workspacesService } = services;

  /** `include=workspaces` / `workspace-exclusions` (the workspaces, once each, that the caller may read) and `newest-version` / `current-version`. */
  const includedResources = async (context: OrganizationContext, views: PolicySetView[], query: Query): Promise<Resource[]> => {
    const include = parseInclude(query, POLICY_SET_INCLUDES);
    const ids = new Set<string>();
    const versions = new Map<string, Resource>();
    for (const { relations, versions: setVersions } of views) {
      if (include.has('workspaces')) relations.workspaceIds.forEach((id) => ids.add(id));
      if (include.has('workspace-exclusions')) relations.excludedWorkspaceIds.forEach((id) => ids.add(id));
      for (const version of [include.has('newest-version') ? setVersions.newest : undefined, include.has('current-version') ? setVersions.current : undefined]) {
        if (version) versions.set(version.id, policySetVersionResource(version));
      }
    }
    const related = await workspacesService.related(context, [...ids]);
    return [...related.map((view) => workspaceResource(view.workspace, view.standing)), ...versions.values()];
  };

  app.get(
    '/organizations/:organization_name/policies',
    { config: { lookup: 'organization' }, schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['policies'], summary: 'List the policies of an organization' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await policiesService.listPolicies(proofOf(request, 'organization'), page, request.query['search[name]'] || undefined, request.query['filter[kind]'] || undefined);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, policyResource));
    },
  );

  app.post(
    '/organizations/:organization_name/policies',
    { config: { lookup: 'organization' }, schema: { params: OrgParams, body: CreatePolicyBody, tags: ['policies'], summary: 'Create a policy, OPA or Sentinel (upload its text next)' } },
    async (request, reply) => {
      const policy = await policiesService.createPolicy(proofOf(request, 'organization'), request.body.data.attributes);
      return sendDocument(reply, 201, { data: policyResource(policy) });
    },
  );

  app.get(
    '/policies/:policy_id',
    { config: { lookup: 'policy' }, schema: { params: PolicyParams, tags: ['policies'], summary: 'Show a policy' } },
    async (request, reply) => sendDocument(reply, 200, { data: policyResource(proofOf(request, 'policy').row) }),
  );

  app.patch(
    '/policies/:policy_id',
    { config: { lookup: 'policy' }, schema: { params: PolicyParams, body: UpdatePolicyBody, tags: ['policies'], summary: 'Update a policy' } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: policyResource(await policiesService.updatePolicy(proofOf(request, 'policy'), request.body.data.attributes ?? {})) }),
  );

  app.delete(
    '/policies/:policy_id',
    { config: { lookup: 'policy' }, schema: { params: PolicyParams, tags: ['policies'], summary: 'Delete a policy' } },
    async (request, reply) => {
      await policiesService.deletePolicy(proofOf(request, 'policy'));
      return sendNoContent(reply);
    },
  );

  app.get(
    '/policies/:policy_id/download',
    { config: { lookup: 'policy' }, schema: { params: PolicyParams, tags: ['policies'], summary: "Download a policy's text (Rego or Sentinel)" } },
    async (request, reply) => reply.code(200).type('application/octet-stream').send(await policiesService.download(proofOf(request, 'policy'))),
  );

  // The upload takes raw bytes of any content type (go-tfe sends application/octet-stream), in its own scope so
  // the JSON parsers do not apply; the caller's right to change the policy is checked before the body is read.
  await app.register(async (scope: TypedApp) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => readRego(payload, request.headers['content-length'], policiesService.limits.maxBytes));
    scope.put(
      '/policies/:policy_id/upload',
      {
        config: { lookup: 'writable-policy' },
        schema: { params: PolicyParams, tags: ['policies'], summary: "Upload a policy's text (Rego is compiled by OPA first: 422 with OPA's message when it does not compile; Sentinel is stored as it is)" },
      },
      async (request, reply) => {
        const found = proofOf(request, 'writable-policy');
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        await policiesService.upload(found, body.toString('utf8'));
        return sendNoContent(reply);
      },
    );
  });

  app.get(
    '/organizations/:organization_name/policy-sets',
    {
      config: { lookup: 'organization', includes: POLICY_SET_INCLUDES },
      schema: { params: OrgParams, querystring: JsonApiQuery, tags: ['policies'], summary: 'List the policy sets of an organization (include: workspaces, workspace-exclusions)' },
    },
    async (request, reply) => {
      const page = parsePage(request.query);
      const found = proofOf(request, 'organization');
      const result = await policiesService.listSets(found, page, request.query['search[name]'] || undefined, request.query['filter[kind]'] || undefined);
      const included = await includedResources(found, result.items, request.query);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, policySetResource, included));
    },
  );

  app.post(
    '/organizations/:organization_name/policy-sets',
    { config: { lookup: 'organization' }, schema: { params: OrgParams, body: CreateSetBody, tags: ['policies'], summary: 'Create a policy set (OPA or Sentinel)' } },
    async (request, reply) => {
      const { attributes, relationships } = request.body.data;
      const ids = (relation: { data: Array<{ id: string }> } | undefined) => relation?.data.map((item) => item.id) ?? [];
      const view = await policiesService.createSet(proofOf(request, 'organization'), attributes, {
        policyIds: ids(relationships?.policies),
        workspaceIds: ids(relationships?.workspaces),
        excludedWorkspaceIds: ids(relationships?.['workspace-exclusions']),
      });
      return sendDocument(reply, 201, { data: policySetResource(view) });
    },
  );

  app.get(
    '/policy-sets/:policy_set_id',
    {
      config: { lookup: 'policy-set', includes: POLICY_SET_INCLUDES },
      schema: { params: SetParams, querystring: JsonApiQuery, tags: ['policies'], summary: 'Show a policy set (include: workspaces, workspace-exclusions)' },
    },
    async (request, reply) => {
      const found = proofOf(request, 'policy-set');
      const view = await policiesService.showSet(found);
      const included = await includedResources(found.context, [view], request.query);
      return sendDocument(reply, 200, { data: policySetResource(view), ...(included.length > 0 ? { included } : {}) });
    },
  );

  app.patch(
    '/policy-sets/:policy_set_id',
    { config: { lookup: 'policy-set' }, schema: { params: SetParams, body: UpdateSetBody, tags: ['policies'], summary: 'Update a policy set' } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: policySetResource(await policiesService.updateSet(proofOf(request, 'policy-set'), request.body.data.attributes ?? {})) }),
  );

  app.delete(
    '/policy-sets/:policy_set_id',
    { config: { lookup: 'policy-set' }, schema: { params: SetParams, tags: ['policies'], summary: 'Delete a policy set' } },
    async (request, reply) => {
      await policiesService.deleteSet(proofOf(request, 'policy-set'));
      return sendNoContent(reply);
    },
  );

  for (const relation of SET_RELATIONS) {
    for (const [method, change] of [['post', 'add'], ['delete', 'remove']] as const) {
      app[method](
        `/policy-sets/:policy_set_id/relationships/${relation.path}`,
        {
          config: { lookup: 'policy-set' },
          schema: {
            params: SetParams,
            body: identifierListBody(relation.type),
            tags: ['policies'],
            summary: `${change === 'add' ? 'Add' : 'Remove'} ${relation.path} ${change === 'add' ? 'to' : 'from'} a policy set`,
          },
        },
        async (request, reply) => {
          const found = proofOf(request, 'policy-set');
          const ids = (request.body as { data: Array<{ id: string }> }).data.map((item) => item.id);
          await policiesService.changeRelations(found, change, { [relation.key]: ids });
          return sendNoContent(reply);
        },
      );
    }
  }
}
