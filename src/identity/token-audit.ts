import type { Principal } from '../core/principal.js';
import { actorOf } from '../record/actor.js';
import type { AuditEntry } from '../record/audit-trail.js';
import type { TokenRow } from './tokens.repository.js';

/**
 * The audit trail's entry about an organization's token (record/audit-trail.ts): the organization token, the
 * audit trail token, a team's tokens. What kind, whose, its description and expiry: never the secret, nor its
 * hash. `regenerate`: a new token replaced the one before (single tokens: the organization's, a team's legacy one).
 */
export function tokenChanged(principal: Principal, organizationName: string, row: TokenRow, action: 'create' | 'regenerate' | 'destroy'): AuditEntry {
  const meta: Record<string, unknown> = { 'token-kind': row.kind, 'expired-at': row.expired_at };
  if (row.team_id) {
    meta['team-id'] = row.team_id;
    meta.legacy = row.is_legacy === 1;
  }
  if (row.description !== null) meta.description = row.description;
  return { organizationName, actor: actorOf(principal), resource: { id: row.id, type: 'authentication_token', action, meta } };
}
