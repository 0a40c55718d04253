import type { FastifyInstance } from 'fastify';
import { Errors } from '../core/errors.js';

/**
 * While the server closes, a request that still arrives (on a connection kept alive, or one whose headers
 * were on their way) gets a JSON:API 503 and the connection closes. Fastify's own answer to it
 * (`return503OnClosing`) is not JSON:API, so that option is off. Register before every other onRequest
 * hook: the answer needs nothing, least of all the database, which is closing too.
 */
export function refuseRequestsWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(Errors.shuttingDown());
  });
}
