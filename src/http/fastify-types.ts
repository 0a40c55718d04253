import type { Principal } from '../core/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; null only on public routes. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes that authenticate differently (ping, uploads, run task callbacks) or not at all. */
    public?: boolean;
  }
}

export {};
