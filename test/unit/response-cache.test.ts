import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerResponseCache, type CacheHit } from '../../src/cache/response-cache.js';
import '../../src/http/fastify-types.js';

/** A tiny app with the cache, a fake change version and a handler that counts its calls. */
async function appWith(options: { version: () => string; maxAgeMs?: number; validUntil?: (authorization: string) => number | undefined }) {
  const app = Fastify();
  app.decorateRequest('principal', null);
  const hits: CacheHit[] = [];
  const cache = registerResponseCache(app, {
    changeVersion: options.version,
    maxAgeMs: options.maxAgeMs,
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

  it('never answers for a token at or past its expiry', async () => {
    const expiry = Date.now() + 60_000;
    const { get, counts } = await appWith({ version: () => 'v1', validUntil: () => expiry });
    await get('/api/v2/thing');
    assert.deepEqual(await get('/api/v2/thing'), { calls: 1, for: 'Bearer a' }, 'a hit before the expiry');
    const realNow = Date.now;
    Date.now = () => expiry;
    try {
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

  it('reports each hit with its route', async () => {
    const { get, hits } = await appWith({ version: () => 'v1' });
    await get('/api/v2/thing');
    await get('/api/v2/thing');
    assert.deepEqual(hits, [{ route: '/api/v2/thing' }]);
  });
});
