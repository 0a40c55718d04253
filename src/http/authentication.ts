import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, type Authenticator } from '../identity/authenticate.js';
import type { TokenUsage } from '../identity/token-usage.js';
import type { AuthFailureLimit } from './auth-failure-limit.js';
import { Errors } from '../core/errors.js';
import { takesAgentToken } from './agent-token-routes.js';
import './fastify-types.js';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /** Failed authentication per client address; absent: not limited. */
  failures?: AuthFailureLimit;
  /** Records that a token was used (its `last-used-at`); absent: not recorded. */
  tokenUsage?: TokenUsage;
}

/**
 * Authentication runs first on every non-public API route (register it before the rate limit, which then
 * counts per principal); the token is looked up on every request.
 *
 * Every 401 of the API counts against the client's address, also from routes that check their own
 * tokens (run task callbacks, downloads); an address over its budget is refused before its token is
 * looked up, on those routes as on the others, unless the token is one known to be valid.
 */
export function registerAuthentication(app: FastifyInstance, options: AuthenticationOptions): void {
  const { authenticator, failures, tokenUsage } = options;
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/api/v2/')) return;
    const isPublic = request.routeOptions.config?.public === true;
    const token = bearerToken(request);
    // A public route without credentials (ping) has nothing to refuse.
    if (failures && (!isPublic || request.headers.authorization !== undefined)) refuseIfOverBudget(failures, request, token);
    if (isPublic) return;
    // Only a route that declares it takes the audit trail token (the audit trail's) may meet one.
    if (request.routeOptions.config?.auditTrailToken === true) {
      const principal = await authenticator.authenticateAny(token);
      if (principal.kind === 'audit-trail') request.auditTrailPrincipal = principal;
      else request.principal = principal;
    } else {
      request.principal = await authenticator.authenticate(token, { agentToken: takesAgentToken(request.method, request.routeOptions.url) });
    }
    await tokenUsage?.used((request.principal ?? request.auditTrailPrincipal)!.tokenId);
    failures?.succeeded(token!);
  });
  if (!failures) return;
  // onSend, not onResponse: the failure is counted before the client can read the 401 and try again.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && request.url.startsWith('/api/v2/')) failures.failed(request.ip, bearerToken(request));
    return payload;
  });
}

function refuseIfOverBudget(failures: AuthFailureLimit, request: FastifyRequest, token: string | undefined): void {
  const waitMs = failures.retryAfterMs(request.ip, token);
  if (waitMs <= 0) return;
  const seconds = String(Math.ceil(waitMs / 1000));
  throw Errors.authFailuresOverBudget(failures.limit, seconds);
}
