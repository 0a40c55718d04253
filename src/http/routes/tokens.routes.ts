import { Type } from '@sinclair/typebox';
import { Errors } from '../../core/errors.js';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { proofOf } from '../find-and-authorize.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, NullableString } from '../schemas.js';
import { tokenResource } from '../serializers/tokens.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { IssuedToken, OrganizationTokenKind, TokenInput } from '../../identity/tokens.service.js';
import type { TokenRow } from '../../identity/tokens.repository.js';
import type { Services } from '../../services.js';

/**
 * Every token create takes what go-tfe sends: no body at all (`{}`), `{"data":{}}` without `type`, or
 * `{"data":{"type":""}}` (go-tfe marshals its options struct, which has no JSON:API type), as well as
 * `type: authentication-tokens`. Any other type is a 422.
 */
const TokenBody = Type.Object({
  data: Type.Optional(
    Type.Object({
      type: Type.Optional(Type.Union([Type.Literal('authentication-tokens'), Type.Literal('')])),
      attributes: Type.Optional(Type.Object({ description: NullableString(1000), 'expired-at': NullableString(100) })),
    }),
  ),
});

/** The one answer that shows the secret. */
const issued = (token: IssuedToken) => ({ data: tokenResource(token.row, token.secret) });
const shown = (row: TokenRow) => ({ data: tokenResource(row) });
const listed = (rows: TokenRow[]) => ({ data: rows.map((row) => tokenResource(row)) });
const inputOf = (body: { data?: { attributes?: TokenInput } }): TokenInput => body.data?.attributes ?? {};

/**
 * `?token=` on the organization token endpoints (HCP's, as go-tfe sends it): absent or `organization`, the
 * organization token; `audit-trails` (go-tfe's `AuditTrailToken`; `audit_trails` too), the audit trail token.
 */
function organizationTokenKind(query: Record<string, string>): OrganizationTokenKind {
  const value = query.token;
  if (value === undefined || value === '' || value === 'organization') return 'organization';
  if (value === 'audit-trails' || value === 'audit_trails') return 'audit-trail';
  throw Errors.unknownTokenType();
}

/** User, organization (and audit trail) and team tokens. Secrets appear only in the creating response. */
export async function tokensRoutes(app: TypedApp, services: Services): Promise<void> {
  const tokens = services.tokensService;

  app.post(
    '/users/:user_id/authentication-tokens',
    { config: { lookup: 'user' }, schema: { params: IdParam('user_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 201, issued(await tokens.createUserToken(proofOf(request, 'user'), inputOf(request.body)))),
  );
  app.get(
    '/users/:user_id/authentication-tokens',
    { config: { lookup: 'user' }, schema: { params: IdParam('user_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, listed(await tokens.listUserTokens(proofOf(request, 'user')))),
  );

  const organizationToken = { params: IdParam('organization_name'), querystring: JsonApiQuery, tags: ['tokens'] };
  const byOrganization = { config: { lookup: 'organization' as const } };
  app.post(
    '/organizations/:organization_name/authentication-token',
    { ...byOrganization, schema: { ...organizationToken, body: TokenBody } },
    async (request, reply) => {
      const kind = organizationTokenKind(request.query);
      const token = await tokens.createOrganizationToken(callerOf(request), proofOf(request, 'organization'), kind, inputOf(request.body));
      return sendDocument(reply, 201, issued(token));
    },
  );
  app.get('/organizations/:organization_name/authentication-token', { ...byOrganization, schema: organizationToken }, async (request, reply) => {
    const kind = organizationTokenKind(request.query);
    return sendDocument(reply, 200, shown(await tokens.showOrganizationToken(proofOf(request, 'organization'), kind)));
  });
  app.delete('/organizations/:organization_name/authentication-token', { ...byOrganization, schema: organizationToken }, async (request, reply) => {
    await tokens.deleteOrganizationToken(proofOf(request, 'organization'), organizationTokenKind(request.query));
    return sendNoContent(reply);
  });

  app.get('/organizations/:organization_name/team-tokens', { ...byOrganization, schema: organizationToken }, async (request, reply) => {
    const query = request.query;
    const page = await tokens.listOrganizationTeamTokens(proofOf(request, 'organization'), { q: query.q || undefined, sort: query.sort || undefined, page: parsePage(query) });
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, page, (row) => tokenResource(row)));
  });

  const byTeam = { config: { lookup: 'team' as const } };
  app.post(
    '/teams/:team_id/authentication-token',
    { ...byTeam, schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 201, issued(await tokens.createTeamToken(callerOf(request), proofOf(request, 'team'), inputOf(request.body), true))),
  );
  app.get(
    '/teams/:team_id/authentication-token',
    { ...byTeam, schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, shown(await tokens.showLegacyTeamToken(proofOf(request, 'team')))),
  );
  app.delete(
    '/teams/:team_id/authentication-token',
    { ...byTeam, schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteLegacyTeamToken(proofOf(request, 'team'));
      return sendNoContent(reply);
    },
  );
  app.post(
    '/teams/:team_id/authentication-tokens',
    { ...byTeam, schema: { params: IdParam('team_id'), body: TokenBody, tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 201, issued(await tokens.createTeamToken(callerOf(request), proofOf(request, 'team'), inputOf(request.body), false))),
  );
  app.get(
    '/teams/:team_id/authentication-tokens',
    { ...byTeam, schema: { params: IdParam('team_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, listed(await tokens.listTeamTokens(proofOf(request, 'team')))),
  );

  app.get(
    '/authentication-tokens/:token_id',
    { config: { lookup: 'token' }, schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => sendDocument(reply, 200, shown(proofOf(request, 'token'))),
  );
  app.delete(
    '/authentication-tokens/:token_id',
    { config: { lookup: 'token' }, schema: { params: IdParam('token_id'), tags: ['tokens'] } },
    async (request, reply) => {
      await tokens.deleteToken(callerOf(request), proofOf(request, 'token'));
      return sendNoContent(reply);
    },
  );
}
