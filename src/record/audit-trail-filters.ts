import { Errors } from '../core/errors.js';
import { AUDIT_RESOURCE_TYPES, type AuditResourceType } from './audit-trail.js';

/**
 * Teamstage's filters of the audit trail (HCP's API has only `since` and paging; docs/audit-trail.md):
 * `filter[actor]`, who acted (the entry's `auth.description` or `auth.accessor_id`, exactly), and
 * `filter[type]`, one or more resource types, comma-separated. Both empty or absent: no filter.
 */
export interface AuditTrailFilters {
  actor?: string;
  types?: AuditResourceType[];
}

const MAX_ACTOR_LENGTH = 255;

/** The filters of a request; a type the trail never records or an overlong actor is a 422 naming the parameter. */
export function parseAuditTrailFilters(raw: { actor?: string; type?: string }): AuditTrailFilters {
  const filters: AuditTrailFilters = {};
  const actor = raw.actor?.trim();
  if (actor) {
    if (actor.length > MAX_ACTOR_LENGTH) throw Errors.invalidAuditTrailActor();
    filters.actor = actor;
  }
  const types = (raw.type ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (types.length > 0) {
    const known = new Set<string>(AUDIT_RESOURCE_TYPES);
    if (!types.every((type) => known.has(type))) throw Errors.invalidAuditTrailType(AUDIT_RESOURCE_TYPES.join(', '));
    filters.types = [...new Set(types)] as AuditResourceType[];
  }
  return filters;
}
