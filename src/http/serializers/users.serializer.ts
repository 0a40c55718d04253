import type { Resource } from '../jsonapi.js';
import type { UserRow } from '../../identity/users.repository.js';

/** A user as go-tfe's `User` reads it. Email is shown only where the caller may see it. */
export function userResource(user: UserRow, options: { showEmail: boolean; isSiteAdmin?: boolean }): Resource {
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      email: options.showEmail ? user.email : null,
      'is-service-account': user.is_service_account === 1,
      'avatar-url': null,
      'two-factor': { enabled: false, verified: false },
      'unconfirmed-email': null,
      'v2-only': false,
      'is-site-admin': options.isSiteAdmin ?? false,
      'is-admin': false,
      'created-at': user.created_at,
      permissions: { 'can-create-organizations': user.is_service_account === 0, 'can-change-email': true, 'can-change-username': true },
    },
    relationships: {
      'authentication-tokens': { links: { related: `/api/v2/users/${user.id}/authentication-tokens` } },
    },
    links: { self: `/api/v2/users/${user.id}` },
  };
}
