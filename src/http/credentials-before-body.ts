import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Errors } from '../core/errors.js';
import './fastify-types.js';

/**
 * Credentials are checked before a request body is read, so that nobody without them can make
 * the server read (and hold) a body. API routes get that from the authentication hook (onRequest, app.ts).
 * The hooks here keep it true for everything else.
 */

const METHODS_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'QUERY']);

/**
 * A public route (`config: { public: true }`) authenticates itself; one that takes a body must do it in its
 * declared lookup (`config: { lookup }`, find-and-authorize.ts), not in the handler. Checked as each route is added, so a new route that
 * forgets it fails at start instead of opening the hole again.
 */
export function requireCredentialCheckBeforeBody(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = route.config as { public?: boolean; lookup?: string } | undefined;
    if (config?.public !== true) return;
    if (!methods.some((method) => METHODS_WITH_BODIES.has(method))) return;
    if (config.lookup !== undefined) return;
    throw new Error(`public route ${methods.join(',')} ${route.url} takes a body: check its credentials in its declared lookup (config.lookup)`);
  });
}

/** A request no route takes is answered before its body is read (Fastify would parse it first). */
export function answerUnroutedBeforeBody(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.is404 ? Errors.noRoute(request.method, request.url.split('?')[0]!) : undefined);
  });
}

/**
 * `Expect: 100-continue` gets its interim answer once every onRequest hook (the credential checks among
 * them) passed: a refused client then never sends its body at all. Register after those hooks.
 */
export function continueAfterCredentials(app: FastifyInstance): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const expect = request.headers.expect;
    if (typeof expect === 'string' && expect.toLowerCase() === '100-continue' && !reply.raw.headersSent) reply.raw.writeContinue();
    done(null, payload);
  });
}

/** How long a refused client may go on sending the body it announced, so that it can read the refusal. */
const LINGER_MS = 2000;

/**
 * After a refusal sent before the body was read, node:http reads the rest of the body only to discard it
 * (no memory held), so the connection can serve another request. That is bounded here: a body not over
 * within LINGER_MS ends the connection. Closing at once instead would reset the connection under a client
 * still sending, and the client would never read why it was refused.
 */
export function limitUnreadBodyAfterRefusal(request: FastifyRequest, reply: FastifyReply): void {
  const { headers } = request;
  const announcesBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
  const socket = request.raw.socket as { destroy?: () => void } | undefined;
  if (!announcesBody || request.raw.complete !== false || typeof socket?.destroy !== 'function') return;
  reply.raw.once('finish', () => {
    const timer = setTimeout(() => {
      if (!request.raw.complete) socket.destroy!();
    }, LINGER_MS);
    timer.unref();
    request.raw.once('end', () => clearTimeout(timer));
  });
}
