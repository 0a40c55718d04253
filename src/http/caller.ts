import type { FastifyRequest } from 'fastify';
import type { Principal } from '../core/principal.js';
import { Unauthorized } from '../core/errors.js';
import './fastify-types.js';

/** The authenticated principal of a non-public route. */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Unauthorized();
  return request.principal;
}
