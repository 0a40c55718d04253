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
    };

/** A stable key for per-principal limits (rate limit). */
export function principalKey(principal: Principal): string {
  return `${principal.kind}:${principal.tokenId}`;
}
