import { parseTimestamps } from '../../core/status-timestamps.js';
import type { Resource } from '../jsonapi.js';
import type { PolicySetVersionRow } from '../../policies/policy-set-versions.repository.js';

/**
 * Type `policy-set-versions`, as HCP serves it (source `tfe-api`: Teamstage has no VCS ingress). `links.upload`:
 * while pending, to the set's managers only (policy-set-versions.service.ts decides).
 */
export function policySetVersionResource(row: PolicySetVersionRow, uploadUrl?: string): Resource {
  return {
    id: row.id,
    type: 'policy-set-versions',
    attributes: {
      source: 'tfe-api',
      status: row.status,
      'status-timestamps': parseTimestamps(row.status_timestamps),
      error: row.error,
      'error-message': row.error,
      'ingress-attributes': null,
      'created-at': row.created_at,
      'updated-at': row.updated_at,
    },
    relationships: {
      'policy-set': { data: { id: row.policy_set_id, type: 'policy-sets' } },
    },
    links: {
      self: `/api/v2/policy-set-versions/${row.id}`,
      ...(uploadUrl !== undefined ? { upload: uploadUrl } : {}),
    },
  };
}
