import { Errors } from '../core/errors.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { answerWithError, MAX_HEADER_BYTES, type InFlightResponses } from './http-layer-answers.js';
import { TLS_HARDENING, type TlsPair } from './tls-certificate.js';

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Fastify's server options (`http` or `https`, `requestTimeout`, `keepAliveTimeout`): node:http bounds how
 * long a client may take (headers, whole request, idle keep-alive) and how large its headers may be. With a
 * TLS pair the same limits go into `https` (Fastify hands node:https only that object).
 */
export function nodeServerOptions(limits: ServerLimits, tlsPair?: TlsPair) {
  const http = {
    headersTimeout: limits.headersTimeoutMs,
    maxHeaderSize: MAX_HEADER_BYTES,
    // How often node:http looks for requests past their timeouts (its default, 30 s, would let a
    // timeout of seconds run late by up to that much).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
    // Answered below, as JSON:API (node:http would answer an empty 400).
    requireHostHeader: false,
  };
  const server = tlsPair ? { https: { ...http, ...tlsPair, ...TLS_HARDENING } } : { http };
  return { requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.keepAliveTimeoutMs, ...server };
}

/**
 * Puts a step in front of Fastify's request listener on its node:http server (public EventEmitter API,
 * no server of our own): every response is tracked so that a client error knows whether it may still
 * answer (http-layer-answers.ts), and what node:http would answer alone (a missing `Host`, an unknown
 * `Expect`) is answered as JSON:API. `Expect: 100-continue` reaches Fastify without the interim answer:
 * that is sent once the credentials passed (credentials-before-body.ts), so a refused client never sends
 * its body at all.
 */
export function wrapRequestListener(server: Server, responses: InFlightResponses): void {
  const listeners = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  server.removeAllListeners('request');
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    responses.track(request.socket, response);
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      answerWithError(response, Errors.hostHeaderMissing());
      return;
    }
    for (const listener of listeners) listener(request, response);
  };
  server.on('request', onRequest);
  server.on('checkContinue', onRequest);
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) =>
    answerWithError(response, Errors.unsupportedExpectation()),
  );
}
