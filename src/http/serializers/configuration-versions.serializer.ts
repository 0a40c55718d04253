import { parseTimestamps } from '../../core/status-timestamps.js';
import type { Resource } from '../jsonapi.js';
import type { ConfigurationVersionRow } from '../../workspaces/configuration-versions.repository.js';

/** Type `configuration-versions`. `upload-url` is shown once, in the create response (its token is stored only as a hash). */
export function configurationVersionResource(row: ConfigurationVersionRow, uploadUrl?: string): Resource {
  const attributes: Record<string, unknown> = {
    'auto-queue-runs': row.auto_queue_runs === 1,
    error: null,
    'error-message': null,
    source: 'tfe-api',
    speculative: row.speculative === 1,
    provisional: row.provisional === 1,
    status: row.status,
    'status-timestamps': parseTimestamps(row.status_timestamps),
    'changed-files': [],
  };
  if (uploadUrl !== undefined) attributes['upload-url'] = uploadUrl;
  return {
    id: row.id,
    type: 'configuration-versions',
    attributes,
    relationships: {
      workspace: { data: { id: row.workspace_id, type: 'workspaces' } },
    },
    links: {
      self: `/api/v2/configuration-versions/${row.id}`,
      download: `/api/v2/configuration-versions/${row.id}/download`,
    },
  };
}
