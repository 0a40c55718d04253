import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../identity/authenticate.js';
import { callerOf } from './caller.js';
import type { LookupName, LookupRequest, Lookups, ProofOf } from './lookups.js';
import './fastify-types.js';

/**
 * Find, then authorize, once: a route with an id declares the one lookup it needs
 * (`config: { lookup: 'team' }`); this hook runs it before a byte of the body is read, so an unknown or
 * hidden id is 404 whatever the body holds, and keeps its proof on the request for the handler
 * (`proofOf(request, 'team')`). The service takes the proof and never reads again what it holds.
 *
 * Registered as an onRequest hook of the API scope, after the authentication hook (app-level hooks run
 * first): the lookup knows the caller, and `Expect: 100-continue` is answered only after it passed.
 */
export function registerFindAndAuthorize(api: FastifyInstance, lookups: Lookups): void {
  api.addHook('onRequest', async (request) => {
    const name = request.routeOptions.config.lookup;
    if (name !== undefined) request.found = { name, proof: await lookups[name](lookupRequest(request)) };
  });
}

function lookupRequest(request: FastifyRequest): LookupRequest {
  return {
    param: (name) => (request.params as Record<string, string>)[name]!,
    caller: () => callerOf(request),
    bearerToken: () => bearerToken(request),
    teamReadAhead: () => request.teamReadAhead,
  };
}

/**
 * The proof the route's declared lookup produced. Asking for another lookup's proof is a wiring mistake
 * in the route file (a bug, so a plain Error), not something a client can cause.
 */
export function proofOf<N extends LookupName>(request: FastifyRequest, name: N): ProofOf<N> {
  const found = request.found;
  if (found?.name !== name) throw new Error(`${request.routeOptions.url} reads the '${name}' proof but declares lookup '${String(found?.name)}'`);
  return found.proof as ProofOf<N>;
}
