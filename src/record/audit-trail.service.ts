import { requirePersonalAccess } from '../access/require-access.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { AnyPrincipal, AuditTrailPrincipal } from '../core/principal.js';
import type { AuditTrailRecord, AuditTrailRepository } from './audit-trail.repository.js';
import { parseSince } from './audit-trail-since.js';
import { parseAuditTrailFilters } from './audit-trail-filters.js';

/**
 * Reading the organization audit trail (`GET /organization/audit-trail`): the access table decides who may
 * (only an audit trail token, `read-audit-trail`), the token says which organization. Oldest first, so a page
 * once full never changes as the trail grows; `since` keeps entries after that time, `filter[actor]` and
 * `filter[type]` (Teamstage's, audit-trail-filters.ts) those of one actor and of some resource types.
 */
export class AuditTrailService {
  constructor(private readonly trail: AuditTrailRepository) {}

  /** The organization whose trail the caller reads; 404 for every caller but an audit trail token (first, before any parameter). */
  organizationOf(reader: AnyPrincipal): string {
    requirePersonalAccess(reader, 'read-audit-trail');
    // The table allows the audit trail token alone, which names its organization.
    return (reader as AuditTrailPrincipal).organizationName;
  }

  async list(organizationName: string, options: { since?: string; actor?: string; type?: string; page: PageRequest }): Promise<Page<AuditTrailRecord>> {
    const since = parseSince(options.since);
    const filters = parseAuditTrailFilters({ actor: options.actor, type: options.type });
    const { rows, total } = await this.trail.page(organizationName, since, filters, options.page.offset, options.page.size);
    return pageOf(options.page, rows, total);
  }
}
