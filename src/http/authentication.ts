import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, type Authenticator } from '../identity/authenticate.js';
import type { Principal } from '../identity/principal.js';
import './fastify-types.js';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /** The response cache's side of authentication (response-cache.ts). */
  responseCache: {
    cachedPrincipal(request: FastifyRequest): Principal | undefined;
    principalValidUntil(request: FastifyRequest, validUntil: number): void;
  };
}

/**
 * Authentication runs first on every non-public API route (register it before the rate limit, which then
 * counts per principal). A cache hit brings its principal, valid as long as its entry; anything else is
 * looked up, and the cache is told when the token expires so that no entry outlives it.
 */
export function registerAuthentication(app: FastifyInstance, options: AuthenticationOptions): void {
  const { authenticator, responseCache } = options;
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || !request.url.startsWith('/api/v2/')) return;
    const cached = responseCache.cachedPrincipal(request);
    if (cached) {
      request.principal = cached;
      return;
    }
    const identity = await authenticator.identify(bearerToken(request));
    request.principal = identity.principal;
    responseCache.principalValidUntil(request, identity.validUntil);
  });
}
