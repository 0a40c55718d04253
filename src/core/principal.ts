/**
 * Who is asking, as established from the bearer token alone. What that principal may do inside an
 * organization is worked out by authz/organization-standing.ts.
 */
export type Principal =
  | { kind: 'site-admin'; tokenId: string }
  | { kind: 'user'; tokenId: string; userId: string; username: string }
  | { kind: 'organization'; tokenId: string; organizationName: string }
  | {
      kind: 'team';
      tokenId: string;
      organizationName: string;
      teamId: string;
      serviceAccountUserId: string | null;
      /** False for a token minted by the organization token (or by such a token): it is no more a person than its minter. */
      actsAsPerson: boolean;
    }
  /**
   * An agent pool's token (HCP's agent tokens): the pipeline's identity. Authenticated only on the routes of the
   * pipeline protocol (http/agent-token-routes.ts); there it holds `write` access to the workspaces that name
   * its pool (access/workspace-gate.ts) and nothing else in its organization.
   */
  | { kind: 'agent'; tokenId: string; organizationName: string; agentPoolId: string };

/**
 * An organization's audit trail token (HCP's `?token=audit-trails`). Deliberately not a member of
 * `Principal`: nothing that takes a Principal can be reached with it. Only a route that declares
 * `config: { auditTrailToken: true }` gets one (http/caller.ts `auditTrailReaderOf`), and it reads that
 * organization's audit trail and nothing else.
 */
export interface AuditTrailPrincipal {
  kind: 'audit-trail';
  tokenId: string;
  organizationName: string;
}

/** Whatever a bearer token can stand for. */
export type AnyPrincipal = Principal | AuditTrailPrincipal;

/** A stable key for per-principal limits (rate limit). */
export function principalKey(principal: AnyPrincipal): string {
  return `${principal.kind}:${principal.tokenId}`;
}
