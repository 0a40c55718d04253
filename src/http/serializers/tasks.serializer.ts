import type { Resource } from '../jsonapi.js';
import type { TaskRow } from '../../runtasks/tasks.repository.js';

/** Type `tasks`. `hmac-key` is write-only: always null here, whatever is stored (CONTRACT 7). */
export function taskResource(row: TaskRow, workspaceTaskIds: readonly string[]): Resource {
  return {
    id: row.id,
    type: 'tasks',
    attributes: {
      name: row.name,
      url: row.url,
      description: row.description,
      category: row.category,
      enabled: row.enabled === 1,
      'hmac-key': null,
      'created-at': row.created_at,
      'updated-at': row.updated_at,
    },
    relationships: {
      organization: { data: { id: row.organization_name, type: 'organizations' } },
      'workspace-tasks': { data: workspaceTaskIds.map((id) => ({ id, type: 'workspace-tasks' })) },
    },
    links: { self: `/api/v2/tasks/${row.id}` },
  };
}
