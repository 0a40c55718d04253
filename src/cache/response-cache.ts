import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { VersionedCache } from './versioned-cache.js';
import type { Principal } from '../core/principal.js';
import '../http/fastify-types.js';

interface CachedResponse {
  principal: Principal;
  /** When the principal's token expires (epoch ms): from then on the entry answers nobody. */
  validUntil: number;
  contentType: string;
  body: Buffer;
  /** The route's pattern, for the metrics of a hit. */
  route: string;
}

interface CacheState {
  key: string;
  /** The database change version when the request arrived: a response computed now is stored under it. */
  version: string;
  /** When the request arrived (performance.now()): the age of a response stored now counts from it. */
  since: number;
  hit?: CachedResponse;
  /** Set by authentication (`principalValidUntil`); a response is stored only once it is known. */
  validUntil?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    responseCache: CacheState | null;
  }
}

export interface ResponseCacheOptions {
  /** Reads the database change version; absent, or undefined at a request: no caching. */
  changeVersion: () => string | undefined;
  maxEntries?: number;
  /** Bounds what no write announces: tokens expiring, `now`-dependent counts. */
  maxAgeMs?: number;
  /** Told of every hit. */
  onHit?: (hit: CacheHit) => void;
}

export interface CacheHit {
  route: string;
}

const MAX_BODY = 256 * 1024;

/**
 * Exact caching of authenticated GET responses. A response is reused only while the database's change
 * version is the one it was computed at — any write changes it — so a hit returns byte for byte what the
 * handler would compute now. Entries are per bearer token (by digest: permissions differ per caller) and
 * live at most `maxAgeMs`, and never past the expiry of the token they were computed for. The cached principal
 * skips authentication; the rate limit still counts every request.
 * Only where the change version is exact (SQLite: cache-switch.ts).
 *
 * A hit goes through Fastify's hooks (rate limit, logs, metrics) and is answered before the handler.
 */
export function registerResponseCache(app: FastifyInstance, options: ResponseCacheOptions): {
  /** Call as the first step of authentication: a cached principal for this token, if still valid. */
  cachedPrincipal(request: FastifyRequest): Principal | undefined;
  /** Call once authentication succeeded: until when (epoch ms) this request's principal may be reused. */
  principalValidUntil(request: FastifyRequest, validUntil: number): void;
  /** Register after the rate limit: answers hits before the handler runs. */
  registerHitHandler(): void;
} {
  const { changeVersion } = options;
  const entries = new VersionedCache<CachedResponse>(changeVersion, { maxEntries: options.maxEntries, maxAgeMs: options.maxAgeMs });
  app.decorateRequest('responseCache', null);

  /** The cache state of an authenticated API GET (its key, the version now, a hit if any); null when not cacheable. */
  const lookup = (request: { method?: string; url?: string; headers: IncomingMessage['headers'] }): CacheState | null => {
    const { method, url } = request;
    const authorization = request.headers.authorization;
    if (method !== 'GET' || typeof authorization !== 'string' || !url?.startsWith('/api/v2/')) return null;
    const version = changeVersion();
    if (version === undefined) return null;
    const key = `${hash('sha256', authorization, 'base64')} ${url}`;
    const hit = entries.peek(key, version);
    // No write announces that a token expired: the entry's own deadline does, checked at every hit.
    return { key, version, since: performance.now(), hit: hit && Date.now() < hit.validUntil ? hit : undefined };
  };

  app.addHook('onRequest', async (request) => {
    request.responseCache = lookup(request);
  });

  // Runs after the group-commit hook (app.ts registers that first): an entry is stored only once every
  // commit its version counts is on disk.
  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.responseCache;
    if (!state || state.hit || reply.statusCode !== 200 || typeof payload !== 'string' || payload.length > MAX_BODY) return payload;
    if (!request.principal || state.validUntil === undefined) return payload;
    const response = {
      principal: request.principal,
      validUntil: state.validUntil,
      contentType: String(reply.getHeader('content-type') ?? 'application/vnd.api+json'),
      body: Buffer.from(payload),
      route: request.routeOptions.url ?? 'unmatched',
    };
    entries.remember(state.key, state.version, response, state.since);
    return payload;
  });

  const onHit = options.onHit ?? (() => {});

  const answerHit = async (request: FastifyRequest, reply: FastifyReply) => {
    const hit = request.responseCache?.hit;
    if (!hit) return;
    onHit({ route: hit.route });
    return reply.code(200).type(hit.contentType).send(hit.body);
  };
  return {
    cachedPrincipal: (request) => request.responseCache?.hit?.principal,
    principalValidUntil(request, validUntil) {
      if (request.responseCache) request.responseCache.validUntil = validUntil;
    },
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
