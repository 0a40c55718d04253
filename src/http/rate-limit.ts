import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { principalKey } from '../core/principal.js';
import { Errors } from '../core/errors.js';

/**
 * N requests per second per authenticated principal (per IP before authentication).
 * Counts are per node, kept in memory: a limit meant to stop a runaway client, not a quota.
 */
export async function registerRateLimit(app: FastifyInstance, perSecond: number): Promise<void> {
  if (perSecond <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: perSecond,
    timeWindow: 1000,
    hook: 'preHandler',
    keyGenerator: (request) => {
      const principal = request.principal ?? request.auditTrailPrincipal;
      return principal ? principalKey(principal) : `ip:${request.ip}`;
    },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: (_request, context) =>
      Errors.rateLimited(context.max, Math.ceil(context.ttl / 1000)),
  });
}
