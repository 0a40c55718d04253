import type { FastifyInstance } from 'fastify';

/**
 * One access-log line per request, written when the response is done: method, path, address, status and
 * time taken. Fastify's own request logging writes two lines (one on arrival, one at the end), each a
 * synchronous write to stdout; under load that second line was a tenth of a read's CPU (issue 18). Headers
 * are never logged (they carry tokens and signatures), nor the query string, which may carry a search.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const path = request.url.split('?', 1)[0];
    // Flat fields: under `req` and `res` Fastify's serializers would expect the request objects themselves.
    request.log.info({ method: request.method, url: path, remoteAddress: request.ip, statusCode: reply.statusCode, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
}
