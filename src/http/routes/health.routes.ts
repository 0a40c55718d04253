import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { ApiError } from '../../core/errors.js';
import { describeRefusal, type WriteHealth } from '../../ops/write-health.js';
import { VERSION } from '../../core/version.js';

const DISCOVERY = { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' };

/** Unauthenticated endpoints: health for orchestrators, discovery and ping for Terraform clients. */
export async function healthRoutes(app: FastifyInstance, options: { handle: DatabaseHandle; rateLimit: number; writeHealth?: WriteHealth }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', version: VERSION }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await sql`select 1`.execute(options.handle.db);
    } catch {
      throw new ApiError(503, 'database is not reachable');
    }
    const refusal = await options.writeHealth?.currentRefusal();
    if (refusal) throw new ApiError(503, describeRefusal(refusal));
    return { status: 'ready' };
  });

  app.get('/.well-known/terraform.json', async () => DISCOVERY);

  app.get('/api/v2/ping', { config: { public: true } }, async (_request, reply) => {
    reply.headers({
      'TFP-API-Version': '2.6',
      'TFP-AppName': 'Teamstage',
      'X-RateLimit-Limit': String(options.rateLimit),
    });
    return reply.code(204).send();
  });
}
