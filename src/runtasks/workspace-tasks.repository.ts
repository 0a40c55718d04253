import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';
import { forUpdate } from '../db/row-lock.js';
import type { Executor } from '../jobs/job-queue.js';
import type { Database, TaskStageName } from '../db/schema.js';
import { storedStages, workspaceTaskFromRow, workspaceTaskToRow, type WorkspaceTask } from './workspace-task.js';
import type { EnforcementLevel } from '../shared/enforcement-levels.js';

export type WorkspaceTaskChanges = Partial<Pick<WorkspaceTask, 'enforcement_level' | 'stages' | 'required_approvals' | 'updated_at'>>;

const COLUMNS = [
  'workspace_tasks.id', 'workspace_tasks.workspace_id', 'workspace_tasks.task_id', 'workspace_tasks.enforcement_level',
  'workspace_tasks.stages', 'workspace_tasks.required_approvals', 'workspace_tasks.created_at', 'workspace_tasks.updated_at',
] as const;

/** An enabled attachment with what a run's results copy from its task. */
export interface EnabledWorkspaceTask {
  id: string;
  task_id: string;
  task_name: string;
  task_url: string;
  enforcement_level: EnforcementLevel;
  stages: TaskStageName[];
  required_approvals: number;
}

export class WorkspaceTasksRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Serializes attachments of one task for the rest of the transaction (see TasksRepository.lockOrganization). */
  async lockTask(executor: Executor, taskId: string): Promise<void> {
    await executor.updateTable('tasks').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', taskId).execute();
  }

  /** Workspaces the task is attached to (an attachment is unique per workspace and task). */
  async countWorkspacesOf(executor: Executor, taskId: string): Promise<number> {
    const row = await executor
      .selectFrom('workspace_tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(executor: Executor, task: WorkspaceTask): Promise<void> {
    await executor.insertInto('workspace_tasks').values(workspaceTaskToRow(task)).execute();
  }

  async find(workspaceId: string, id: string): Promise<WorkspaceTask | undefined> {
    const row = await this.db.selectFrom('workspace_tasks').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return row && workspaceTaskFromRow(row);
  }

  async list(workspaceId: string, offset: number, limit: number): Promise<{ rows: WorkspaceTask[]; total: number }> {
    const query = this.db.selectFrom('workspace_tasks').where('workspace_tasks.workspace_id', '=', workspaceId);
    const rows = await query.select(COLUMNS).orderBy('workspace_tasks.created_at').orderBy('workspace_tasks.id').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows: rows.map(workspaceTaskFromRow), total: Number(count.n) };
  }

  /**
   * One read-modify-write of an attachment, atomic on both databases and across nodes (see
   * TeamsRepository.modify). Answers the row as stored, or undefined when it no longer exists.
   */
  async modify(
    id: string,
    decide: (current: WorkspaceTask) => WorkspaceTaskChanges,
    alsoWrite?: (trx: Executor, before: WorkspaceTask, after: WorkspaceTask) => Promise<void>,
  ): Promise<WorkspaceTask | undefined> {
    return retryOnDeadlock(() =>
      this.db.transaction().execute(async (trx) => {
        const current = await forUpdate(trx.selectFrom('workspace_tasks').select(COLUMNS).where('id', '=', id), this.dialect).executeTakeFirst();
        if (!current) return undefined;
        const task = workspaceTaskFromRow(current);
        const changes = decide(task);
        if (Object.keys(changes).length > 0) {
          const { stages, ...rest } = changes;
          await trx.updateTable('workspace_tasks').set(stages ? { ...rest, stages: JSON.stringify(stages) } : rest).where('id', '=', id).execute();
        }
        const stored = { ...task, ...changes };
        // In the same transaction (the audit trail).
        await alsoWrite?.(trx, task, stored);
        return stored;
      }),
    );
  }

  /** Whether it was there to delete. */
  async delete(id: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor.deleteFrom('workspace_tasks').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The workspace's attachments whose task is enabled: what a new run builds its stages from. */
  async enabledFor(executor: Executor, workspaceId: string): Promise<EnabledWorkspaceTask[]> {
    const rows = await executor
      .selectFrom('workspace_tasks')
      .innerJoin('tasks', 'tasks.id', 'workspace_tasks.task_id')
      .select([
        'workspace_tasks.id', 'workspace_tasks.task_id', 'tasks.name as task_name', 'tasks.url as task_url',
        'workspace_tasks.enforcement_level', 'workspace_tasks.stages', 'workspace_tasks.required_approvals',
      ])
      .where('workspace_tasks.workspace_id', '=', workspaceId)
      .where('tasks.enabled', '=', 1)
      .orderBy('workspace_tasks.created_at')
      .orderBy('workspace_tasks.id')
      .execute();
    return rows.map((row) => ({ ...row, stages: storedStages(row.stages) }));
  }
}
