import type { FastifyInstance } from 'fastify';
import { parseInclude } from './include.js';
import type { Query } from './querystring.js';

/**
 * The contract's strict `include`, on every route at once (issue 37): a route names the related resources it
 * can place in `included` (`config: { includes: [...] }`); any other name, on any route, is a 400 that lists
 * the allowed ones, as HCP answers. Without this, a route that forgot `include` answered 200 with nothing
 * included, and go-tfe dereferenced what it had asked for. Runs after the route's lookup (an unknown id is
 * still a 404) and before the body is read.
 */
export function registerStrictInclude(api: FastifyInstance): void {
  api.addHook('onRequest', async (request) => {
    const query = request.query as Query;
    if (query.include === undefined) return;
    parseInclude(query, request.routeOptions.config.includes ?? []);
  });
}
