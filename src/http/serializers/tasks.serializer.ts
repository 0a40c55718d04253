import { uniqueResources, type Resource } from '../jsonapi.js';
import type { TaskRow } from '../../runtasks/tasks.repository.js';
import type { TaskRelated, TaskView } from '../../runtasks/tasks.service.js';
import { workspaceTaskResource } from './workspace-tasks.serializer.js';
import { workspaceResource } from './workspaces.serializer.js';

/** Type `tasks`. `hmac-key` is write-only: always null here, whatever is stored, so the secret never leaves. */
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

export function taskViewResource(view: TaskView): Resource {
  return taskResource(view.task, view.attachmentIds);
}

/** `included` of a run task document: attachments, then their workspaces, each once. */
export function taskIncluded(related: TaskRelated): Resource[] {
  const { standing } = related;
  const workspaces = standing ? related.workspaces.map((workspace) => workspaceResource(workspace, standing)) : [];
  return uniqueResources([...related.attachments.map(workspaceTaskResource), ...workspaces]);
}
