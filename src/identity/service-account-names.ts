import { idSuffix } from '../core/ids.js';

/** What a service account stands for: a team's tokens, an organization's token, or the site admin's. */
export type ServiceAccountOwner =
  | { kind: 'team'; teamId: string }
  | { kind: 'organization'; organizationName: string }
  | { kind: 'site-admin' };

/**
 * Service-account names start with one of these. Nobody else may take one: a person named
 * `api-team_…` would read as a team's token in every membership list and run. Compared ignoring case, as
 * usernames are unique ignoring case.
 */
const RESERVED_PREFIXES = ['api-team_', 'api-org-', 'api-site-admin'] as const;

export function isReservedUsername(username: string): boolean {
  const lower = username.toLowerCase();
  return RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export const RESERVED_USERNAME_DETAIL = `usernames starting with ${RESERVED_PREFIXES.join(', ')} are reserved for service accounts`;

/** The name a service account is shown with (HCP Terraform's spelling). */
export function serviceAccountName(owner: ServiceAccountOwner): string {
  switch (owner.kind) {
    case 'team':
      return `api-team_${idSuffix(owner.teamId)}`;
    case 'organization':
      return `api-org-${owner.organizationName}`;
    case 'site-admin':
      return 'api-site-admin';
  }
}

/** What the account is found by, with its flag: the owner's id, never the name, which a person may hold. */
export function serviceAccountOwnerKey(owner: ServiceAccountOwner): string {
  switch (owner.kind) {
    case 'team':
      return `team:${owner.teamId}`;
    case 'organization':
      return `organization:${owner.organizationName}`;
    case 'site-admin':
      return 'site-admin';
  }
}
