import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { requireCredentialCheckBeforeBody } from '../../src/http/credentials-before-body.js';

describe('public routes that take a body check credentials before reading it', () => {
  it('refuses to add a public route with a body and no onRequest or preParsing hook; accepts the others', async () => {
    const app = Fastify();
    requireCredentialCheckBeforeBody(app);
    const check = async () => {};
    assert.throws(() => app.put('/open-upload', { config: { public: true } }, async () => ''), /check its credentials in an onRequest hook/);
    assert.throws(() => app.route({ method: ['GET', 'PATCH'], url: '/open-patch', config: { public: true }, handler: async () => '' }), /PATCH/);
    app.put('/checked-upload', { config: { public: true }, onRequest: check }, async () => '');
    app.patch('/checked-later', { config: { public: true }, preParsing: [check] }, async () => '');
    app.get('/public-read', { config: { public: true } }, async () => '');
    app.post('/authenticated-by-the-api-hook', async () => '');
    await app.ready();
    await app.close();
  });
});
