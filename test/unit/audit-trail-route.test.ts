import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { Authenticator } from '../../src/identity/authenticate.js';
import { hashToken } from '../../src/identity/token-secrets.js';
import type { TokensRepository } from '../../src/identity/tokens.repository.js';
import { registerAuthentication } from '../../src/http/authentication.js';
import { auditTrailReaderOf, callerOf } from '../../src/http/caller.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';

/** A token table of two rows: an organization token and an audit trail token of organization `acme`. */
function authenticator(): Authenticator {
  const rows = new Map(
    (['organization', 'audit-trail'] as const).map((kind) => [
      hashToken(`${kind}-secret`),
      {
        id: `at-${kind}`, kind, token_hash: hashToken(`${kind}-secret`), expired_at: null, organization_name: 'acme', acts_as_person: 0,
        user_id: null, username: null, team_id: null, team_organization: null, service_account_user_id: null, team_is_owners: null, team_feature_set: null,
      },
    ]),
  );
  return new Authenticator({ findForAuthentication: async (digest: string) => rows.get(digest) } as unknown as TokensRepository);
}

/**
 * The mechanism the audit trail's route uses: only a route that declares `config.auditTrailToken` lets an
 * audit trail token in, and hands it over as its own kind; every other route answers it 401.
 */
describe('routes and the audit trail token', () => {
  async function app() {
    const server = Fastify();
    registerErrorHandler(server);
    registerAuthentication(server, { authenticator: authenticator() });
    server.get('/api/v2/anything', async (request) => ({ kind: callerOf(request).kind }));
    server.get('/api/v2/audit-trail', { config: { auditTrailToken: true } }, async (request) => ({ kind: auditTrailReaderOf(request).kind }));
    server.get('/api/v2/audit-trail-by-principal', { config: { auditTrailToken: true } }, async (request) => ({ kind: callerOf(request).kind }));
    await server.ready();
    return server;
  }
  const get = (server: Awaited<ReturnType<typeof app>>, url: string, token: string) =>
    server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('an ordinary route answers the audit trail token 401 and takes the organization token', async () => {
    const server = await app();
    const refused = await get(server, '/api/v2/anything', 'audit-trail-secret');
    assert.equal(refused.statusCode, 401);
    assert.match(refused.body, /audit trail/);
    assert.deepEqual((await get(server, '/api/v2/anything', 'organization-secret')).json(), { kind: 'organization' });
    await server.close();
  });

  it('a route that declares it takes the audit trail token gets it as its own kind, and other tokens as before', async () => {
    const server = await app();
    assert.deepEqual((await get(server, '/api/v2/audit-trail', 'audit-trail-secret')).json(), { kind: 'audit-trail' });
    assert.deepEqual((await get(server, '/api/v2/audit-trail', 'organization-secret')).json(), { kind: 'organization' });
    assert.equal((await get(server, '/api/v2/audit-trail', 'unknown')).statusCode, 401);
    // Even there, code that asks for an ordinary principal never receives the audit trail token.
    assert.equal((await get(server, '/api/v2/audit-trail-by-principal', 'audit-trail-secret')).statusCode, 401);
    await server.close();
  });
});
