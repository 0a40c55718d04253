import type { Resource } from '../jsonapi.js';
import type { TokenRow } from '../../identity/tokens.repository.js';

/** `secret` is present only in the response that creates the token; afterwards it is never shown again. */
export function tokenResource(row: TokenRow, secret?: string): Resource {
  const attributes: Record<string, unknown> = {
    'created-at': row.created_at,
    'last-used-at': row.last_used_at,
    description: row.description,
    'expired-at': row.expired_at,
  };
  if (secret !== undefined) attributes.token = secret;
  const relationships: Record<string, unknown> = {};
  if (row.created_by_id) relationships['created-by'] = { data: { id: row.created_by_id, type: 'users' } };
  if (row.team_id) relationships.team = { data: { id: row.team_id, type: 'teams' } };
  return { id: row.id, type: 'authentication-tokens', attributes, relationships, links: { self: `/api/v2/authentication-tokens/${row.id}` } };
}
