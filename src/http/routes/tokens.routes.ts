import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, NullableString, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import type { TeamTokenInput } from '../../identity/tokens.service.js';

// The body is optional: `{}` (what an empty body reads as) is accepted.
const TokenBody = Type.Object({
  data: Type.Optional(
    resourceBody('authentication-tokens', Type.Object({ description: NullableString(1000), 'expired-at': NullableString(100) }), {
      attributesRequired: false,
    }).properties.data,
  ),
});
type TokenRequestBody = { data?: { attributes?: TeamTokenInput } } | undefined;

/** User, organization and team tokens (CONTRACT 3). Secrets appear only in the creating response. */
export async function tokensRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const tokens = services.tokensService;
  const attributes = (body: TokenRequestBody) => body?.data?.attributes ?? {};

  app.post<{ Params: { user_id: string }; Body: TokenRequestBody }>(
    '/users/:user_id/authentication-tokens',
    { schema: { params: IdParam('user_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, {
        data: await tokens.createUserToken(callerOf(request), request.params.user_id, attributes(request.body).description ?? null),
      }),
  );
  app.get<{ Params: { user_id: string } }>(
    '/users/:user_id/authentication-tokens',
    { schema: { params: IdParam('user_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, { data: await tokens.listUserTokens(callerOf(request), request.params.user_id) }),
  );

  app.post<{ Params: { organization_name: string }; Body: TokenRequestBody }>(
    '/organizations/:organization_name/authentication-token',
    { schema: { params: IdParam('organization_name'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, {
        data: await tokens.createOrganizationToken(callerOf(request), request.params.organization_name, attributes(request.body)['expired-at']),
      }),
  );
  app.delete<{ Params: { organization_name: string } }>(
    '/organizations/:organization_name/authentication-token',
    { schema: { params: IdParam('organization_name'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteOrganizationToken(callerOf(request), request.params.organization_name);
      return sendNoContent(reply);
    },
  );

  app.post<{ Params: { team_id: string }; Body: TokenRequestBody }>(
    '/teams/:team_id/authentication-token',
    { schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, { data: await tokens.createTeamToken(callerOf(request), request.params.team_id, attributes(request.body), true) }),
  );
  app.delete<{ Params: { team_id: string } }>(
    '/teams/:team_id/authentication-token',
    { schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteLegacyTeamToken(callerOf(request), request.params.team_id);
      return sendNoContent(reply);
    },
  );
  app.post<{ Params: { team_id: string }; Body: TokenRequestBody }>(
    '/teams/:team_id/authentication-tokens',
    { schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, { data: await tokens.createTeamToken(callerOf(request), request.params.team_id, attributes(request.body), false) }),
  );
  app.get<{ Params: { team_id: string } }>(
    '/teams/:team_id/authentication-tokens',
    { schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, { data: await tokens.listTeamTokens(callerOf(request), request.params.team_id) }),
  );

  app.get<{ Params: { token_id: string } }>(
    '/authentication-tokens/:token_id',
    { schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, { data: await tokens.showToken(callerOf(request), request.params.token_id) }),
  );
  app.delete<{ Params: { token_id: string } }>(
    '/authentication-tokens/:token_id',
    { schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteToken(callerOf(request), request.params.token_id);
      return sendNoContent(reply);
    },
  );
}
