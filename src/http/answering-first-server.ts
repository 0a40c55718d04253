import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';

/** Answers a request itself and returns true, or returns false to leave it to Fastify. */
export type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;

/**
 * Fastify's `serverFactory`: the node:http server Fastify would make, with the same timeouts, whose
 * handler first offers each request to `answer()` (looked up per request: it is set once the app is
 * built). Routing, hooks and the reply object cost a cached GET about as much CPU as node:http itself, so
 * the response cache answers its hits here, when nothing Fastify adds would be visible (response-cache.ts).
 */
export function answeringFirstServer(answer: () => EarlyAnswer | undefined): FastifyServerFactory {
  return (handler, options) => {
    const server = http.createServer((request, response) => {
      if (!answer()?.(request, response)) handler(request, response);
    });
    // What Fastify's own factory sets from the same options (fastify/lib/server.js).
    const settings = options as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number; maxRequestsPerSocket: number };
    server.keepAliveTimeout = settings.keepAliveTimeout;
    server.requestTimeout = settings.requestTimeout;
    server.setTimeout(settings.connectionTimeout);
    if (settings.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
    return server;
  };
}
