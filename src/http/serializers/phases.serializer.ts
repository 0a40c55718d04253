import { parseTimestamps } from '../../core/status-timestamps.js';
import type { Resource } from '../jsonapi.js';
import type { PhaseRow } from '../../runs/runs.repository.js';

function phaseAttributes(row: PhaseRow): Record<string, unknown> {
  return {
    status: row.status,
    'status-timestamps': parseTimestamps(row.status_timestamps),
    'has-changes': row.has_changes === 1,
    'resource-additions': row.resource_additions,
    'resource-changes': row.resource_changes,
    'resource-destructions': row.resource_destructions,
    'resource-imports': 0,
    'execution-details': { mode: 'remote' },
    // The no-op executor writes no logs.
    'log-read-url': null,
  };
}

/** Type `plans`; its JSON plan is at `links.json-output`. */
export function planResource(row: PhaseRow): Resource {
  return {
    id: row.id,
    type: 'plans',
    attributes: { ...phaseAttributes(row), 'generated-configuration': false },
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/plans/${row.id}`, 'json-output': `/api/v2/plans/${row.id}/json-output` },
  };
}

/** Type `applies`. */
export function applyResource(row: PhaseRow): Resource {
  return {
    id: row.id,
    type: 'applies',
    attributes: phaseAttributes(row),
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/applies/${row.id}` },
  };
}
