import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken } from '../identity/authenticate.js';
import type { EarlyAnswer } from './answering-first-server.js';
import type { AuthFailureLimit } from './auth-failure-limit.js';
import { ERROR_TITLES } from './error-document.js';

/**
 * Refuses a request from an address over its failed-authentication budget before Fastify sees it, with
 * the 429 the authentication hook would send (http/authentication.ts). A flood of made-up tokens then
 * costs node:http's parsing and a map lookup per request: through Fastify's routing, hooks, error
 * handler and reply, each refusal cost several times that, all of it taken from the valid users.
 * Only requests that carry credentials: a request without any may be for a public route (ping), which
 * Fastify's routing knows and this does not. The address is the peer's, as Fastify's `request.ip`.
 */
export function refuseOverBudgetEarly(failures: AuthFailureLimit, onRefused: () => void): EarlyAnswer {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.authorization === undefined || !request.url?.startsWith('/api/v2/')) return false;
    const waitMs = failures.retryAfterMs(request.socket.remoteAddress ?? '', () => bearerToken(request));
    if (waitMs <= 0) return false;
    const seconds = String(Math.ceil(waitMs / 1000));
    const body = Buffer.from(JSON.stringify({ errors: [overBudgetError(failures.limit, seconds)] }));
    response.writeHead(429, {
      'content-type': 'application/vnd.api+json; charset=utf-8',
      'content-length': body.length,
      'retry-after': seconds,
      'x-ratelimit-reset': seconds,
    });
    response.end(body);
    onRefused();
    return true;
  };
}

export function overBudgetError(limit: number, seconds: string) {
  return {
    status: '429',
    title: ERROR_TITLES[429]!,
    detail: `too many failed authentication attempts from this address (limit ${limit} per minute); retry in ${seconds} s`,
  };
}

/** The first of several early answers that takes the request. */
export function firstEarlyAnswer(...answers: Array<EarlyAnswer | undefined>): EarlyAnswer | undefined {
  const present = answers.filter((answer): answer is EarlyAnswer => answer !== undefined);
  if (present.length <= 1) return present[0];
  return (request, response) => present.some((answer) => answer(request, response));
}
