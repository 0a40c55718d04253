import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { answerWithError, MAX_HEADER_BYTES, type InFlightResponses } from './http-layer-answers.js';

/** Answers a request itself and returns true, or returns false to leave it to Fastify. */
export type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Told of every response, so that a client error knows whether it may still answer (http-layer-answers.ts). */
  responses: InFlightResponses;
}

/**
 * Fastify's `serverFactory`: a node:http server whose handler first offers each request to `answer()`
 * (looked up per request: it is set once the app is built). Routing, hooks and the reply object cost a
 * cached GET about as much CPU as node:http itself, so the response cache answers its hits here, when
 * nothing Fastify adds would be visible (response-cache.ts).
 *
 * It also bounds how long a client may take (headers, whole request, idle keep-alive), and answers what
 * node:http would answer alone (an unknown `Expect`, a missing `Host`) as JSON:API. `Expect: 100-continue`
 * reaches Fastify without the interim answer: that is sent once the credentials passed
 * (credentials-before-body.ts), so a refused client never sends its body at all.
 */
export function answeringFirstServer(answer: () => EarlyAnswer | undefined, limits: ServerLimits): FastifyServerFactory {
  return (handler, options) => {
    const onRequest = (request: http.IncomingMessage, response: http.ServerResponse) => {
      limits.responses.track(request.socket, response);
      if (request.httpVersion === '1.1' && request.headers.host === undefined) {
        answerWithError(response, 400, 'an HTTP/1.1 request must have a Host header');
        return;
      }
      if (!answer()?.(request, response)) handler(request, response);
    };
    const server = http.createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        maxHeaderSize: MAX_HEADER_BYTES,
        // How often node:http looks for requests past their timeouts (its default, 30 s, would let a
        // timeout of seconds run late by up to that much).
        connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
        // Answered above, as JSON:API (node:http would answer an empty 400).
        requireHostHeader: false,
      },
      onRequest,
    );
    server.on('checkContinue', onRequest);
    server.on('checkExpectation', (_request: http.IncomingMessage, response: http.ServerResponse) =>
      answerWithError(response, 417, 'the only expectation supported is 100-continue'),
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    // What Fastify's own factory sets from its options (fastify/lib/server.js); the timeouts above replace its requestTimeout.
    const settings = options as { connectionTimeout: number; maxRequestsPerSocket: number };
    server.setTimeout(settings.connectionTimeout);
    if (settings.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
    return server;
  };
}
