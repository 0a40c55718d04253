import type { FastifyInstance } from 'fastify';

/**
 * Headers every answer carries. `X-Content-Type-Options: nosniff`: a browser never reads a JSON answer (or
 * a plan JSON, a log) as HTML or script because its bytes look like one. Set in the first onRequest hook,
 * so answers given before any route runs (an early 429, a 404, a 503 while closing) carry it too; the
 * answers node:http gives by itself set it in http-layer-answers.ts.
 */
export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
}
