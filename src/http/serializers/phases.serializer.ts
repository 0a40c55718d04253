import { parseTimestamps } from '../../core/status-timestamps.js';
import type { Resource } from '../jsonapi.js';
import type { PhaseRow } from '../../runs/runs.repository.js';
import { executionModeOf } from '../../workspaces/execution-mode.js';

function phaseAttributes(row: PhaseRow, logReadUrl: string): Record<string, unknown> {
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
    // The no-op executor (remote mode) writes no logs; in agent mode, the pipeline uploads them.
    'log-read-url': mode === 'agent' ? logReadUrl : null,
  };
}

/** Type `plans`; its JSON plan is at `links.json-output`. `baseUrl`: for the absolute `log-read-url`. */
export function planResource(row: PhaseRow, baseUrl: string): Resource {
  return {
    id: row.id,
    type: 'plans',
    attributes: { ...phaseAttributes(row, `${baseUrl}/api/v2/plans/${row.id}/log`), 'generated-configuration': false },
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/plans/${row.id}`, 'json-output': `/api/v2/plans/${row.id}/json-output` },
  };
}

/** Type `applies`. */
export function applyResource(row: PhaseRow, baseUrl: string): Resource {
  return {
    id: row.id,
    type: 'applies',
    attributes: phaseAttributes(row, `${baseUrl}/api/v2/applies/${row.id}/log`),
    relationships: { run: { data: { id: row.run_id, type: 'runs' } } },
    links: { self: `/api/v2/applies/${row.id}` },
  };
}
