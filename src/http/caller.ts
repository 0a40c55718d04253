import type { FastifyRequest } from 'fastify';
import type { AnyPrincipal, Principal } from '../core/principal.js';
import { Errors } from '../core/errors.js';
import './fastify-types.js';

/** The authenticated principal of a non-public route. */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw Errors.tokenInvalid();
  return request.principal;
}

/**
 * The caller of a route declared with `config: { auditTrailToken: true }`: any principal, or an audit
 * trail token. Such a route decides itself what each kind may read (an audit trail token: its own
 * organization's audit trail, nothing else).
 */
export function auditTrailReaderOf(request: FastifyRequest): AnyPrincipal {
  const principal = request.principal ?? request.auditTrailPrincipal;
  if (!principal) throw Errors.tokenInvalid();
  return principal;
}
