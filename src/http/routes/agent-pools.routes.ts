import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString, resourceBody } from '../schemas.js';
import { agentPoolResource } from '../serializers/agent-pools.serializer.js';
import { tokenResource } from '../serializers/tokens.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

const attributes = Type.Object({ name: Type.Optional(Type.String({ maxLength: 1000 })), 'organization-scoped': Type.Optional(Type.Boolean()) });
const relationships = Type.Object({
  'allowed-workspaces': Type.Optional(Type.Object({
    data: Type.Array(Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal('workspaces') }), { maxItems: 1000 }),
  })),
});
const CreateBody = resourceBody('agent-pools', attributes, { relationships });
const UpdateBody = resourceBody('agent-pools', attributes, { attributesRequired: false, relationships });
/** go-tfe sends type `agent-tokens` (HCP's own documentation says `authentication-tokens`): both are taken. */
const TokenBody = Type.Object({
  data: Type.Object({
    type: Type.Union([Type.Literal('agent-tokens'), Type.Literal('authentication-tokens')]),
    attributes: Type.Optional(Type.Object({ description: NullableString(1000) })),
  }),
});
const SORTS = ['created-at', '-created-at', 'name', '-name'] as const;
const sortOf = (value: string | undefined) => (SORTS as readonly string[]).includes(value ?? '') ? (value as (typeof SORTS)[number]) : undefined;
const PoolParams = IdParam('agent_pool_id');

const allowedIds = (body: { relationships?: { 'allowed-workspaces'?: { data: Array<{ id: string }> } } }) =>
  body.relationships?.['allowed-workspaces']?.data.map((item) => item.id);

/** HCP's agent pools and agent tokens (issue 36): the pipeline's identity for its pool's workspaces. */
export async function agentPoolsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { agentPoolsService, config } = services;
  app.get(
    '/organizations/:organization_name/agent-pools',
    { config: { lookup: 'organization' }, schema: { params: IdParam('organization_name'), querystring: JsonApiQuery, tags: ['agent-pools'], summary: "List an organization's agent pools" } },
    async (request, reply) => {
      const query = request.query;
      const result = await agentPoolsService.list(proofOf(request, 'organization'), parsePage(query), {
        query: query.q || undefined, allowedWorkspaceName: query['filter[allowed_workspaces][name]'] || undefined, sort: sortOf(query.sort),
      });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, agentPoolResource));
    },
  );
  app.post(
    '/organizations/:organization_name/agent-pools',
    { config: { lookup: 'organization' }, schema: { params: IdParam('organization_name'), body: CreateBody, tags: ['agent-pools'], summary: 'Create an agent pool' } },
    async (request, reply) => {
      const view = await agentPoolsService.create(proofOf(request, 'organization'), request.body.data.attributes, allowedIds(request.body.data));
      return sendDocument(reply, 201, { data: agentPoolResource(view) });
    },
  );
  app.get(
    '/agent-pools/:agent_pool_id',
    { config: { lookup: 'agent-pool' }, schema: { params: PoolParams, tags: ['agent-pools'], summary: 'Show an agent pool' } },
    async (request, reply) => sendDocument(reply, 200, { data: agentPoolResource(await agentPoolsService.show(proofOf(request, 'agent-pool'))) }),
  );
  app.patch(
    '/agent-pools/:agent_pool_id',
    { config: { lookup: 'agent-pool' }, schema: { params: PoolParams, body: UpdateBody, tags: ['agent-pools'], summary: 'Update an agent pool (name, organization-scoped, allowed workspaces)' } },
    async (request, reply) => {
      const view = await agentPoolsService.update(proofOf(request, 'agent-pool'), request.body.data.attributes ?? {}, allowedIds(request.body.data));
      return sendDocument(reply, 200, { data: agentPoolResource(view) });
    },
  );
  app.delete(
    '/agent-pools/:agent_pool_id',
    { config: { lookup: 'agent-pool' }, schema: { params: PoolParams, tags: ['agent-pools'], summary: 'Delete an agent pool and its tokens' } },
    async (request, reply) => {
      await agentPoolsService.delete(proofOf(request, 'agent-pool'));
      return sendNoContent(reply);
    },
  );
  app.get(
    '/agent-pools/:agent_pool_id/authentication-tokens',
    { config: { lookup: 'agent-pool' }, schema: { params: PoolParams, querystring: JsonApiQuery, tags: ['agent-pools'], summary: "List an agent pool's tokens" } },
    async (request, reply) => {
      const result = await agentPoolsService.listTokens(proofOf(request, 'agent-pool'), parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, (row) => tokenResource(row)));
    },
  );
  app.post(
    '/agent-pools/:agent_pool_id/authentication-tokens',
    { config: { lookup: 'agent-pool' }, schema: { params: PoolParams, body: TokenBody, tags: ['agent-pools'], summary: 'Create an agent token (its secret is shown once)' } },
    async (request, reply) => {
      const { row, secret } = await agentPoolsService.createToken(callerOf(request), proofOf(request, 'agent-pool'), request.body.data.attributes?.description ?? null);
      return sendDocument(reply, 201, { data: tokenResource(row, secret) });
    },
  );
}
