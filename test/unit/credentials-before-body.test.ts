import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { requireCredentialCheckBeforeBody } from '../../src/http/credentials-before-body.js';

describe('public routes that take a body check credentials before reading it', () => {
  it('refuses to add a public route with a body and no declared lookup; accepts the others', async () => {
    const app = Fastify();
    requireCredentialCheckBeforeBody(app);
    const check = async () => {};
    assert.throws(() => app.put('/open-upload', { config: { public: true } }, async () => ''), /check its credentials in its declared lookup/);
    assert.throws(() => app.route({ method: ['GET', 'PATCH'], url: '/open-patch', config: { public: true }, handler: async () => '' }), /PATCH/);
    // A hook of its own is not the declared step: the route must say which lookup authorizes it.
    assert.throws(() => app.put('/hooked-upload', { config: { public: true }, onRequest: check }, async () => ''), /declared lookup/);
    app.put('/checked-upload', { config: { public: true, lookup: 'configuration-upload' } }, async () => '');
    app.patch('/checked-callback', { config: { public: true, lookup: 'task-result-callback' } }, async () => '');
    app.get('/public-read', { config: { public: true } }, async () => '');
    app.post('/authenticated-by-the-api-hook', async () => '');
    await app.ready();
    await app.close();
  });
});
