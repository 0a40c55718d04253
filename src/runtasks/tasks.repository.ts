import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import { retryOnDeadlock } from '../db/deadlock-retry.js';
import { forUpdate } from '../db/row-lock.js';
import type { Executor } from '../jobs/job-queue.js';
import type { Database, TasksTable } from '../db/schema.js';
import { workspaceTaskFromRow, type WorkspaceTask } from './workspace-task.js';

export type TaskRow = TasksTable;
export type TaskChanges = Partial<Omit<TaskRow, 'id' | 'organization_name' | 'created_at'>>;

const COLUMNS = [
  'tasks.id', 'tasks.organization_name', 'tasks.name', 'tasks.name_lower', 'tasks.url', 'tasks.description', 'tasks.category',
  'tasks.hmac_key', 'tasks.enabled', 'tasks.created_at', 'tasks.updated_at',
] as const;

export class TasksRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Takes the organization's row lock for the rest of the transaction (a no-op update: portable, a row
   * lock on PostgreSQL and the write lock on SQLite), so limit checks and inserts of concurrent creates
   * happen one after the other.
   */
  async lockOrganization(executor: Executor, organizationName: string): Promise<void> {
    await executor.updateTable('organizations').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('name', '=', organizationName).execute();
  }

  async countInOrganization(executor: Executor, organizationName: string): Promise<number> {
    const row = await executor
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_name', '=', organizationName)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(executor: Executor, row: TaskRow): Promise<void> {
    await executor.insertInto('tasks').values(row).execute();
  }

  findById(id: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async list(organizationName: string, offset: number, limit: number): Promise<{ rows: TaskRow[]; total: number }> {
    const query = this.db.selectFrom('tasks').where('tasks.organization_name', '=', organizationName);
    const rows = await query.select(COLUMNS).orderBy('tasks.name_lower').orderBy('tasks.id').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /**
   * One read-modify-write of a task, atomic on both databases and across nodes (see TeamsRepository.modify):
   * `decide` sees the row as stored now, under its lock, and may throw to write nothing. Answers the row
   * as stored, or undefined when the task no longer exists.
   */
  async modify(
    id: string,
    decide: (current: TaskRow) => TaskChanges,
    alsoWrite?: (trx: Executor, before: TaskRow, after: TaskRow) => Promise<void>,
  ): Promise<TaskRow | undefined> {
    return retryOnDeadlock(() =>
      this.db.transaction().execute(async (trx) => {
        const current = await forUpdate(trx.selectFrom('tasks').select(COLUMNS).where('id', '=', id), this.dialect).executeTakeFirst();
        if (!current) return undefined;
        const changes = decide(current);
        if (Object.keys(changes).length > 0) await trx.updateTable('tasks').set(changes).where('id', '=', id).execute();
        const stored = { ...current, ...changes };
        // In the same transaction (the audit trail).
        await alsoWrite?.(trx, current, stored);
        return stored;
      }),
    );
  }

  /**
   * Deletes the task only while nothing is attached to it; answers whether it did. The task's row is locked
   * first, the lock an attachment takes (WorkspaceTasksRepository.lockTask): an attachment is either
   * committed before the check sees it, or finds the task gone. Without it, PostgreSQL could check against
   * a snapshot without an attachment being made and then cascade that acknowledged attachment away.
   */
  async deleteIfDetached(id: string, alsoWrite?: (trx: Executor) => Promise<void>): Promise<boolean> {
    return retryOnDeadlock(() =>
      this.db.transaction().execute(async (trx) => {
        if (!(await forUpdate(trx.selectFrom('tasks').select('id').where('id', '=', id), this.dialect).executeTakeFirst())) return false;
        const result = await trx
          .deleteFrom('tasks')
          .where('id', '=', id)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('workspace_tasks').select('workspace_tasks.id').where('workspace_tasks.task_id', '=', id))))
          .executeTakeFirst();
        const deleted = Number(result.numDeletedRows) > 0;
        // In the same transaction (the audit trail), once deleted.
        if (deleted) await alsoWrite?.(trx);
        return deleted;
      }),
    );
  }

  /** The attachments of each task, for the `workspace-tasks` relationship and `include=workspace_tasks`. */
  async attachmentsOf(taskIds: readonly string[]): Promise<WorkspaceTask[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('workspace_tasks')
      .select(['id', 'task_id', 'workspace_id', 'enforcement_level', 'stages', 'required_approvals', 'created_at', 'updated_at'])
      .where('task_id', 'in', [...taskIds])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(workspaceTaskFromRow);
  }
}
