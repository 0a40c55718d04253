import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a caller's X-Request-Id may be to be kept: short, and nothing a log line or a header could be bent by. */
const ACCEPTED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is a plausible id (a proxy or client that
 * traces its requests), else a fresh UUID. Unique across nodes and restarts, unlike Fastify's per-process
 * counter, so a request can be found in the logs of a cluster. Answers carry it back (app.ts).
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID();
}
