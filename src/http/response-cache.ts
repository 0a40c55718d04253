import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EarlyAnswer } from './answering-first-server.js';
import { VersionedCache } from '../db/versioned-cache.js';
import type { Principal } from '../core/principal.js';
import './fastify-types.js';

interface CachedResponse {
  principal: Principal;
  /** When the principal's token expires (epoch ms): from then on the entry answers nobody. */
  validUntil: number;
  contentType: string;
  /** Bytes, so that an early hit (below) hands node:http a buffer it need not encode. */
  body: Buffer;
  /** The route's pattern, for the metrics of an early hit. */
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
  changeVersion: (() => string | undefined) | undefined;
  maxEntries?: number;
  /** Bounds what no write announces: tokens expiring, `now`-dependent counts. */
  maxAgeMs?: number;
  /**
   * True when nothing Fastify adds to a hit would be visible (no rate limit, no request logs): hits are then
   * answered before Fastify (see `answerEarly` below).
   */
  answerEarly?: boolean;
  /** Told of every hit; of an early one also its route and time, which Fastify's hooks did not see. */
  onHit?: (hit: CacheHit) => void;
}

export type CacheHit = { route: string; early: false } | { route: string; early: true; seconds: number };

const MAX_BODY = 256 * 1024;

/**
 * Exact caching of authenticated GET responses. A response is reused only while the database's change
 * version is the one it was computed at — any write changes it — so a hit returns byte for byte what the
 * handler would compute now. Entries are per bearer token (by digest: permissions differ per caller) and
 * live at most `maxAgeMs`, and never past the expiry of the token they were computed for. The cached principal
 * skips authentication; the rate limit still counts every request. On PostgreSQL there is a version only while this node is the only one (db/lone-node-lease.ts):
 * several nodes share no cheap exact change signal, so they do not cache.
 *
 * A hit goes through Fastify's hooks (rate limit, logs, metrics) and is answered before the handler. When
 * there is no rate limit and no request log, `answerEarly` answers it before Fastify instead, with the same
 * bytes and the same metrics: about half of a hit's CPU was Fastify's routing, hooks and reply.
 */
export function registerResponseCache(app: FastifyInstance, options: ResponseCacheOptions): {
  /** Call as the first step of authentication: a cached principal for this token, if still valid. */
  cachedPrincipal(request: FastifyRequest): Principal | undefined;
  /** Call once authentication succeeded: until when (epoch ms) this request's principal may be reused. */
  principalValidUntil(request: FastifyRequest, validUntil: number): void;
  /** Register after the rate limit: answers hits before the handler runs. */
  registerHitHandler(): void;
  /** For the server (answering-first-server.ts): answers a hit before Fastify sees the request, if allowed. */
  answerEarly: EarlyAnswer | undefined;
} {
  const { changeVersion } = options;
  const entries = new VersionedCache<CachedResponse>(changeVersion, { maxEntries: options.maxEntries, maxAgeMs: options.maxAgeMs });
  app.decorateRequest('responseCache', null);
  if (!changeVersion) return { cachedPrincipal: () => undefined, principalValidUntil: () => {}, registerHitHandler: () => {}, answerEarly: undefined };

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
  // commit its version counts is on disk, which is why an early hit below need not wait for durability.
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

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true; // from now on Fastify answers 503 (return503OnClosing) and the database may close
  });
  const onHit = options.onHit ?? (() => {});

  /** A hit answered before Fastify, with the status, headers and bytes the Fastify path (below) sends. */
  function answerEarly(request: IncomingMessage, response: ServerResponse): boolean {
    // A GET with a body is left to Fastify, which decides what to do with it.
    if (closing || request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) return false;
    const state = lookup(request);
    const hit = state?.hit;
    if (!hit) return false;
    response.writeHead(200, { 'content-type': hit.contentType, 'content-length': hit.body.length });
    response.end(hit.body);
    onHit({ route: hit.route, early: true, seconds: (performance.now() - state.since) / 1000 });
    return true;
  }

  const answerHit = async (request: FastifyRequest, reply: FastifyReply) => {
    const hit = request.responseCache?.hit;
    if (!hit) return;
    onHit({ route: hit.route, early: false });
    return reply.code(200).type(hit.contentType).send(hit.body);
  };
  return {
    answerEarly: options.answerEarly === true ? answerEarly : undefined,
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
