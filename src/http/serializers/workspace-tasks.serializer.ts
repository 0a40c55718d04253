import type { Resource } from '../jsonapi.js';
import type { WorkspaceTask } from '../../runtasks/workspace-task.js';

/** Type `workspace-tasks`; `stage` is the legacy single-stage attribute, echoed as the first stage. */
export function workspaceTaskResource(row: WorkspaceTask): Resource {
  const { stages } = row;
  return {
    id: row.id,
    type: 'workspace-tasks',
    attributes: {
      'enforcement-level': row.enforcement_level,
      stage: stages[0] ?? null,
      stages,
      'required-approvals': row.required_approvals,
      'created-at': row.created_at,
      'updated-at': row.updated_at,
    },
    relationships: {
      task: { data: { id: row.task_id, type: 'tasks' } },
      workspace: { data: { id: row.workspace_id, type: 'workspaces' } },
    },
    links: { self: `/api/v2/workspaces/${row.workspace_id}/tasks/${row.id}` },
  };
}
