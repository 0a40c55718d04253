import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, type Authenticator, type TokenRead } from '../identity/authenticate.js';
import type { TeamReadsWithCredential } from '../teams/team-read-with-credential.js';
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
  /** On routes whose lookup is the team: the token and the team read in one statement; absent: two. */
  teamReads?: TeamReadsWithCredential;
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
  const { authenticator, failures, tokenUsage, teamReads } = options;
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
      const agentToken = takesAgentToken(request.method, request.routeOptions.url);
      request.principal = await authenticator.authenticate(token, { agentToken, readToken: teamReads && readWithTeam(teamReads, request) });
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

/**
 * On a route whose lookup is the team (GET, PATCH, DELETE /teams/:id and its sub-resources): the token read
 * together with the team (team-read-with-credential.ts), which the lookup then takes from the request
 * instead of a second round trip. The team's read is used only once the token has authenticated.
 */
function readWithTeam(teamReads: TeamReadsWithCredential, request: FastifyRequest): TokenRead | undefined {
  const teamId = request.routeOptions.config?.lookup === 'team' ? (request.params as Record<string, string | undefined>).team_id : undefined;
  if (teamId === undefined) return undefined;
  return async (digest) => {
    const { credential, readAhead } = await teamReads.withCredential(digest, teamId);
    request.teamReadAhead = readAhead;
    return credential;
  };
}

function refuseIfOverBudget(failures: AuthFailureLimit, request: FastifyRequest, token: string | undefined): void {
  const waitMs = failures.retryAfterMs(request.ip, token);
  if (waitMs <= 0) return;
  const seconds = String(Math.ceil(waitMs / 1000));
  throw Errors.authFailuresOverBudget(failures.limit, seconds);
}
