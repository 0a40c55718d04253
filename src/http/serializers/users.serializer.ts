import { createHash } from 'node:crypto';
import type { Resource } from '../jsonapi.js';
import type { UserRow } from '../../identity/users.repository.js';

/** A user as go-tfe's `User` reads it. Email is shown only where the caller may see it. */
function gravatarUrl(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?s=100&d=mm`;
}

export function userResource(user: UserRow, options: { showEmail: boolean; isSiteAdmin?: boolean }): Resource {
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      email: options.showEmail ? user.email : null,
      'is-service-account': user.is_service_account === 1,
      // HCP's avatar is the Gravatar of the email (its MD5, a default image when none): shown only where the
      // email itself is, since the hash of a known address gives the address away.
      'avatar-url': options.showEmail && user.email ? gravatarUrl(user.email) : null,
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
