import { parseTimestamps } from '../../core/status-timestamps.js';
import type { Resource } from '../jsonapi.js';
import type { PhaseRow } from '../../runs/runs.repository.js';
import { executionModeOf } from '../../workspaces/execution-mode.js';

/** Who signs the plans' and applies' log URLs (runs/phase-logs.service.ts). */
export interface LogUrls {
  urlFor(phaseId: string): string | null;
}

function phaseAttributes(row: PhaseRow, logUrls: LogUrls): Record<string, unknown> {
  const mode = executionModeOf(row.execution_mode);
  return {
    status: row.status,
    'status-timestamps': parseTimestamps(row.status_timestamps),
    'has-changes': row.has_changes === 1,
    'resource-additions': row.resource_additions,
    'resource-changes': row.resource_changes,
    'resource-destructions': row.resource_destructions,
    'resource-imports': row.resource_imports,
    'execution-details': { mode },
    // HCP's signed, expiring URL, read without a token (runs/log-url-signature.ts): in agent mode the log the
    // pipeline uploaded, in remote mode the built-in executor's few lines.
    'log-read-url': logUrls.urlFor(row.id),
  };
}

/** Type `plans`; its JSON plan is at `links.json-output`. */
export function planResource(row: PhaseRow, logUrls: LogUrls): Resource {
  return {
    id: row.id,
    type: 'plans',
    attributes: { ...phaseAttributes(row, logUrls), 'generated-configuration': false },
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/plans/${row.id}`, 'json-output': `/api/v2/plans/${row.id}/json-output` },
  };
}

/** Type `applies`. */
export function applyResource(row: PhaseRow, logUrls: LogUrls): Resource {
  return {
    id: row.id,
    type: 'applies',
    attributes: phaseAttributes(row, logUrls),
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/applies/${row.id}` },
  };
}
