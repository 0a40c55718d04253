import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, NullableString, resourceBody } from '../schemas.js';
import { tokenResource } from '../serializers/tokens.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { IssuedToken } from '../../identity/tokens.service.js';
import type { TokenRow } from '../../identity/tokens.repository.js';
import type { Services } from '../../services.js';

// The body is optional: `{}` (what an empty body reads as) is accepted.
const TokenBody = Type.Object({
  data: Type.Optional(
    resourceBody('authentication-tokens', Type.Object({ description: NullableString(1000), 'expired-at': NullableString(100) }), {
      attributesRequired: false,
    }).properties.data,
  ),
});

/** The one answer that shows the secret. */
const issued = (token: IssuedToken) => ({ data: tokenResource(token.row, token.secret) });
const listed = (rows: TokenRow[]) => ({ data: rows.map((row) => tokenResource(row)) });

/** User, organization and team tokens. Secrets appear only in the creating response. */
export async function tokensRoutes(app: TypedApp, services: Services): Promise<void> {
  const tokens = services.tokensService;

  app.post(
    '/users/:user_id/authentication-tokens',
    { schema: { params: IdParam('user_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, issued(await tokens.createUserToken(callerOf(request), request.params.user_id, request.body.data?.attributes?.description ?? null))),
  );
  app.get(
    '/users/:user_id/authentication-tokens',
    { schema: { params: IdParam('user_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, listed(await tokens.listUserTokens(callerOf(request), request.params.user_id))),
  );

  app.post(
    '/organizations/:organization_name/authentication-token',
    { schema: { params: IdParam('organization_name'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(
        reply,
        201,
        issued(await tokens.createOrganizationToken(callerOf(request), request.params.organization_name, request.body.data?.attributes?.['expired-at'])),
      ),
  );
  app.delete(
    '/organizations/:organization_name/authentication-token',
    { schema: { params: IdParam('organization_name'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteOrganizationToken(callerOf(request), request.params.organization_name);
      return sendNoContent(reply);
    },
  );

  app.post(
    '/teams/:team_id/authentication-token',
    { schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, issued(await tokens.createTeamToken(callerOf(request), request.params.team_id, request.body.data?.attributes ?? {}, true))),
  );
  app.delete(
    '/teams/:team_id/authentication-token',
    { schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteLegacyTeamToken(callerOf(request), request.params.team_id);
      return sendNoContent(reply);
    },
  );
  app.post(
    '/teams/:team_id/authentication-tokens',
    { schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) =>
      sendDocument(reply, 201, issued(await tokens.createTeamToken(callerOf(request), request.params.team_id, request.body.data?.attributes ?? {}, false))),
  );
  app.get(
    '/teams/:team_id/authentication-tokens',
    { schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, listed(await tokens.listTeamTokens(callerOf(request), request.params.team_id))),
  );

  app.get(
    '/authentication-tokens/:token_id',
    { schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, { data: tokenResource(await tokens.showToken(callerOf(request), request.params.token_id)) }),
  );
  app.delete(
    '/authentication-tokens/:token_id',
    { schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteToken(callerOf(request), request.params.token_id);
      return sendNoContent(reply);
    },
  );
}
