import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { VersionedCache } from '../db/versioned-cache.js';
import type { Principal } from '../identity/principal.js';
import './fastify-types.js';

interface CachedResponse {
  principal: Principal;
  contentType: string;
  body: string;
}

interface CacheState {
  key: string;
  /** The database change version when the request arrived: a response computed now is stored under it. */
  version: string;
  /** When the request arrived (performance.now()): the age of a response stored now counts from it. */
  since: number;
  hit?: CachedResponse;
}

declare module 'fastify' {
  interface FastifyRequest {
    responseCache: CacheState | null;
  }
}

export interface ResponseCacheOptions {
  /** Reads the database change version; absent, or undefined at a request: no caching. */
  changeVersion: (() => string | undefined) | undefined;
  maxEntries?: number;
  /** Bounds what no write announces: tokens expiring, `now`-dependent counts. */
  maxAgeMs?: number;
}

const MAX_BODY = 256 * 1024;

/**
 * Exact caching of authenticated GET responses. A response is reused only while the database's change
 * version is the one it was computed at — any write changes it — so a hit returns byte for byte what the
 * handler would compute now. Entries are per bearer token (by digest: permissions differ per caller) and
 * live at most `maxAgeMs`. The cached principal skips authentication; the rate limit still counts every
 * request. On PostgreSQL there is a version only while this node is the only one (db/lone-node-lease.ts):
 * several nodes share no cheap exact change signal, so they do not cache.
 */
export function registerResponseCache(app: FastifyInstance, options: ResponseCacheOptions): {
  /** Call as the first step of authentication: a cached principal for this token, if still valid. */
  cachedPrincipal(request: FastifyRequest): Principal | undefined;
  /** Register after the rate limit: answers hits before the handler runs. */
  registerHitHandler(): void;
} {
  const { changeVersion } = options;
  const entries = new VersionedCache<CachedResponse>(changeVersion, { maxEntries: options.maxEntries, maxAgeMs: options.maxAgeMs });
  app.decorateRequest('responseCache', null);
  if (!changeVersion) return { cachedPrincipal: () => undefined, registerHitHandler: () => {} };

  app.addHook('onRequest', async (request) => {
    const authorization = request.headers.authorization;
    if (request.method !== 'GET' || typeof authorization !== 'string' || !request.url.startsWith('/api/v2/')) return;
    const key = `${createHash('sha256').update(authorization).digest('base64')} ${request.url}`;
    const version = changeVersion();
    if (version === undefined) return;
    request.responseCache = { key, version, since: performance.now(), hit: entries.peek(key, version) };
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.responseCache;
    if (!state || state.hit || reply.statusCode !== 200 || typeof payload !== 'string' || payload.length > MAX_BODY) return payload;
    if (!request.principal) return payload;
    const response = { principal: request.principal, contentType: String(reply.getHeader('content-type') ?? 'application/vnd.api+json'), body: payload };
    entries.remember(state.key, state.version, response, state.since);
    return payload;
  });

  const answerHit = async (request: FastifyRequest, reply: FastifyReply) => {
    const hit = request.responseCache?.hit;
    if (!hit) return;
    return reply.code(200).type(hit.contentType).send(hit.body);
  };
  return {
    cachedPrincipal: (request) => request.responseCache?.hit?.principal,
    registerHitHandler() {
      // A route-level hook placed after the rate limit's own (which it adds per route, in onRoute, and
      // route-level hooks run after app-level ones): a hit is counted before it is answered.
      app.addHook('onRoute', (route) => {
        const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
        route.preHandler = [...existing, answerHit];
      });
    },
  };
}
