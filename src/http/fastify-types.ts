import type { AuditTrailPrincipal, Principal } from '../core/principal.js';
import type { LookupName } from './lookups.js';
import type { SpooledBody } from './spooled-body.js';
import type { TeamReadAhead } from '../teams/team-read-with-credential.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; null only on public routes. */
    principal: Principal | null;
    /** Set instead of `principal` when an audit trail token calls a route with `config.auditTrailToken`. */
    auditTrailPrincipal?: AuditTrailPrincipal;
    /** What the route's declared lookup found, before the body was read (find-and-authorize.ts); read it with `proofOf`. */
    found?: { name: LookupName; proof: unknown };
    /** The team's read that authentication took along with the token (authentication.ts), for the `team` lookup. */
    teamReadAhead?: TeamReadAhead;
    /** The upload's body, spooled to a temporary file by the upload scope's content parser. */
    spooledUpload?: SpooledBody;
  }
  interface FastifyContextConfig {
    /** Routes that authenticate differently (ping, uploads, run task callbacks) or not at all. */
    public?: boolean;
    /** The route also takes an organization's audit trail token (the audit trail); read it with `auditTrailReaderOf`. */
    auditTrailToken?: boolean;
    /** The lookup that finds this route's resource and authorizes the caller before the body is read (lookups.ts). */
    lookup?: LookupName;
    /** The `include` names the route serves (hyphenated); any other is a 400 (strict-include.ts). None: no include. */
    includes?: readonly string[];
  }
}

export {};
