import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../identity/authenticate.js';
import type { AuthFailureLimit } from './auth-failure-limit.js';
import { Errors } from '../core/errors.js';
import { errorObjectOf } from './error-document.js';

/**
 * Refuses a request from an address over its failed-authentication budget in Fastify's first hook (register
 * this before every other), with the 429 the authentication hook would send (http/authentication.ts): a
 * flood of made-up tokens then costs a map lookup per request, not a token lookup, a body or a handler.
 * Only requests that carry credentials: a request without any may be for a public route (ping). The
 * address is the peer's, as Fastify's `request.ip`.
 */
export function refuseOverBudgetFirst(app: FastifyInstance, failures: AuthFailureLimit, onRefused: () => void): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.authorization === undefined || !request.url.startsWith('/api/v2/')) return done();
    const waitMs = failures.retryAfterMs(request.ip, () => bearerToken(request));
    if (waitMs <= 0) return done();
    const seconds = String(Math.ceil(waitMs / 1000));
    const error = Errors.authFailuresOverBudget(failures.limit, seconds);
    onRefused();
    void reply
      .code(error.status)
      .headers({ 'content-type': 'application/vnd.api+json; charset=utf-8', ...error.headers })
      .send(JSON.stringify({ errors: [errorObjectOf(error)] }));
  });
}
