import { isTaskStageName, type TaskStageName } from '../shared/stage-order.js';
import type { WorkspaceTasksTable } from '../db/schema.js';

/**
 * A run task attached to a workspace, with its stages as a list in run order: the repository decodes the
 * stored JSON once (workspace-tasks.repository.ts), so services, runs and serializers never parse it.
 */
export type WorkspaceTask = Omit<WorkspaceTasksTable, 'stages'> & { stages: TaskStageName[] };

/** The stored JSON array of stages; anything but a known stage name is dropped rather than failing a read. */
export function storedStages(json: string): TaskStageName[] {
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? parsed.filter((stage): stage is TaskStageName => typeof stage === 'string' && isTaskStageName(stage)) : [];
  } catch {
    return [];
  }
}

export function workspaceTaskFromRow(row: WorkspaceTasksTable): WorkspaceTask {
  return { ...row, stages: storedStages(row.stages) };
}

export function workspaceTaskToRow(task: WorkspaceTask): WorkspaceTasksTable {
  return { ...task, stages: JSON.stringify(task.stages) };
}
