import type { Page } from '../../core/page.js';
import type { AuditTrailRecord } from '../../record/audit-trail.repository.js';
import { paginationMeta } from '../pagination.js';

/** Every entry is of HCP's one kind, a change to a resource. */
const ENTRY_TYPE = 'Resource';
/** HCP's schema version of an entry. */
const ENTRY_VERSION = '0';
/** How the actor was authenticated: always by a bearer token (HCP's `Client`; Teamstage has no impersonation). */
const AUTH_TYPE = 'Client';

/** One entry in HCP's shape (not a JSON:API resource: HCP's audit trail API does not use JSON:API). */
export function auditTrailEntry(row: AuditTrailRecord) {
  return {
    id: row.id,
    version: ENTRY_VERSION,
    type: ENTRY_TYPE,
    timestamp: row.timestamp,
    auth: {
      accessor_id: row.accessor_id,
      description: row.actor_name,
      type: AUTH_TYPE,
      impersonator_id: null,
      organization_id: row.organization_name,
    },
    request: { id: row.request_id },
    resource: {
      id: row.resource_id,
      type: row.resource_type,
      action: row.action,
      meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
    },
  };
}

/**
 * A page of the trail as HCP answers it (and go-tfe's `AuditTrailList` reads it): `data` and a top-level
 * `pagination` with snake_case keys. The project's own list shape is there too (`meta.pagination`, `links`),
 * so generic JSON:API clients and the console page through it as through any list.
 */
export function auditTrailDocument(page: Page<AuditTrailRecord>, links: Record<string, string | null>) {
  const meta = paginationMeta(page, page.total);
  return {
    data: page.items.map(auditTrailEntry),
    pagination: {
      current_page: meta['current-page'],
      prev_page: meta['prev-page'],
      next_page: meta['next-page'],
      total_pages: meta['total-pages'],
      total_count: meta['total-count'],
    },
    links,
    meta: { pagination: meta },
  };
}
