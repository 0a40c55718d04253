import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { registerResponseCache, type CacheHit } from '../../src/http/response-cache.js';
import '../../src/http/fastify-types.js';

/** A tiny app with the cache, a fake change version and a handler that counts its calls. */
async function appWith(options: { version: () => string; maxAgeMs?: number; answerEarly?: boolean; validUntil?: (authorization: string) => number | undefined }) {
  const app = Fastify();
  app.decorateRequest('principal', null);
  const hits: CacheHit[] = [];
  const cache = registerResponseCache(app, {
    changeVersion: options.version,
    maxAgeMs: options.maxAgeMs,
    answerEarly: options.answerEarly,
    onHit: (hit) => hits.push(hit),
  });
  let authentications = 0;
  app.addHook('onRequest', async (request) => {
    const cached = cache.cachedPrincipal(request);
    if (cached) request.principal = cached;
    else {
      authentications += 1;
      request.principal = { kind: 'user', tokenId: 'at-1', userId: 'user-1', username: String(request.headers.authorization) };
      const validUntil = options.validUntil ? options.validUntil(String(request.headers.authorization)) : Infinity;
      if (validUntil !== undefined) cache.principalValidUntil(request, validUntil);
    }
  });
  cache.registerHitHandler();
  let calls = 0;
  app.get('/api/v2/thing', async (request) => {
    calls += 1;
    return { calls, for: request.principal?.kind === 'user' ? request.principal.username : null };
  });
  app.get('/api/v2/missing', async (_request, reply) => reply.code(404).send({ errors: [] }));
  await app.ready();
  const get = async (url: string, token = 'Bearer a') => (await app.inject({ method: 'GET', url, headers: { authorization: token } })).json();
  return { app, cache, get, hits, counts: () => ({ calls, authentications }) };
}

/** What node:http would hand the early path, and a response that records what it was sent. */
function rawExchange(url: string, headers: Record<string, string> = { authorization: 'Bearer a' }, method = 'GET') {
  const sent: { status?: number; headers?: Record<string, unknown>; body?: Buffer } = {};
  const request = { method, url, headers } as unknown as IncomingMessage;
  const response = {
    writeHead(status: number, head: Record<string, unknown>) {
      sent.status = status;
      sent.headers = head;
    },
    end(body: Buffer) {
      sent.body = body;
    },
  } as unknown as ServerResponse;
  return { request, response, sent };
}

describe('response cache', () => {
  it('answers a repeated GET from the cache, skipping authentication and the handler', async () => {
    const { get, counts } = await appWith({ version: () => 'v1' });
    assert.deepEqual(await get('/api/v2/thing'), { calls: 1, for: 'Bearer a' });
    assert.deepEqual(await get('/api/v2/thing'), { calls: 1, for: 'Bearer a' });
    assert.deepEqual(counts(), { calls: 1, authentications: 1 });
  });

  it('recomputes once the change version moves', async () => {
    let version = 1;
    const { get, counts } = await appWith({ version: () => `v${version}` });
    await get('/api/v2/thing');
    version += 1;
    assert.deepEqual(await get('/api/v2/thing'), { calls: 2, for: 'Bearer a' });
    assert.equal(counts().authentications, 2, 'a cached principal is not reused across a change either');
  });

  it('keeps entries apart per token and per URL, and never stores errors', async () => {
    const { get, counts } = await appWith({ version: () => 'v1' });
    await get('/api/v2/thing', 'Bearer a');
    assert.deepEqual(await get('/api/v2/thing', 'Bearer b'), { calls: 2, for: 'Bearer b' });
    await get('/api/v2/thing?x=1', 'Bearer a');
    assert.equal(counts().calls, 3);
    await get('/api/v2/missing');
    await get('/api/v2/missing');
    assert.equal(counts().authentications, 5, 'a 404 is not cached');
  });

  it('expires entries after maxAgeMs', async () => {
    const { get, counts } = await appWith({ version: () => 'v1', maxAgeMs: 30 });
    await get('/api/v2/thing');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await get('/api/v2/thing');
    assert.equal(counts().calls, 2);
  });

  it('never answers for a token at or past its expiry, early or through Fastify', async () => {
    const expiry = Date.now() + 60_000;
    const { cache, get, counts } = await appWith({ version: () => 'v1', answerEarly: true, validUntil: () => expiry });
    await get('/api/v2/thing');
    const before = rawExchange('/api/v2/thing');
    assert.equal(cache.answerEarly!(before.request, before.response), true, 'a hit before the expiry');
    const realNow = Date.now;
    Date.now = () => expiry;
    try {
      const late = rawExchange('/api/v2/thing');
      assert.equal(cache.answerEarly!(late.request, late.response), false, 'no early hit at the expiry');
      assert.deepEqual(await get('/api/v2/thing'), { calls: 2, for: 'Bearer a' }, 'no hit through Fastify either');
      assert.equal(counts().authentications, 2, 'the principal is not taken from the cache');
    } finally {
      Date.now = realNow;
    }
  });

  it('stores nothing for a principal that authentication did not date', async () => {
    const { get, counts } = await appWith({ version: () => 'v1', validUntil: () => undefined });
    await get('/api/v2/thing');
    await get('/api/v2/thing');
    assert.deepEqual(counts(), { calls: 2, authentications: 2 });
  });

  it('answers a hit before Fastify when allowed, with the bytes and type Fastify sent, and reports its route', async () => {
    const { app, cache, hits, counts } = await appWith({ version: () => 'v1', answerEarly: true });
    const first = await app.inject({ method: 'GET', url: '/api/v2/thing', headers: { authorization: 'Bearer a' } });
    const exchange = rawExchange('/api/v2/thing');
    assert.equal(cache.answerEarly!(exchange.request, exchange.response), true);
    assert.equal(exchange.sent.status, 200);
    assert.deepEqual(exchange.sent.headers, { 'content-type': first.headers['content-type'], 'content-length': first.rawPayload.length });
    assert.deepEqual(exchange.sent.body, first.rawPayload);
    assert.deepEqual(counts(), { calls: 1, authentications: 1 });
    assert.deepEqual(hits.map((hit) => [hit.route, hit.early]), [['/api/v2/thing', true]]);
  });

  it('leaves to Fastify what it cannot answer exactly: misses, other methods, other callers, GETs with a body', async () => {
    let version = 1;
    const { app, cache } = await appWith({ version: () => `v${version}`, answerEarly: true });
    await app.inject({ method: 'GET', url: '/api/v2/thing', headers: { authorization: 'Bearer a' } });
    const declined = (exchange: ReturnType<typeof rawExchange>) => {
      assert.equal(cache.answerEarly!(exchange.request, exchange.response), false);
      assert.equal(exchange.sent.status, undefined, 'nothing was written');
    };
    declined(rawExchange('/api/v2/thing', { authorization: 'Bearer b' }));
    declined(rawExchange('/api/v2/thing?x=1'));
    declined(rawExchange('/api/v2/thing', { authorization: 'Bearer a' }, 'HEAD'));
    declined(rawExchange('/api/v2/thing', { authorization: 'Bearer a', 'content-length': '2' }));
    declined(rawExchange('/api/v2/thing', { authorization: 'Bearer a', 'transfer-encoding': 'chunked' }));
    version += 1;
    declined(rawExchange('/api/v2/thing'));
  });

  it('answers nothing early once the app is closing (Fastify answers 503 then, and the database may be gone)', async () => {
    const { app, cache } = await appWith({ version: () => 'v1', answerEarly: true });
    await app.inject({ method: 'GET', url: '/api/v2/thing', headers: { authorization: 'Bearer a' } });
    const before = rawExchange('/api/v2/thing');
    assert.equal(cache.answerEarly!(before.request, before.response), true);
    await app.close();
    const after = rawExchange('/api/v2/thing');
    assert.equal(cache.answerEarly!(after.request, after.response), false);
  });

  it('has no early path unless asked, and counts hits through Fastify as not early', async () => {
    const { cache, get, hits } = await appWith({ version: () => 'v1' });
    assert.equal(cache.answerEarly, undefined);
    await get('/api/v2/thing');
    await get('/api/v2/thing');
    assert.deepEqual(hits, [{ route: '/api/v2/thing', early: false }]);
  });
});
