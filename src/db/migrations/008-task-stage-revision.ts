import { sql, type Kysely } from 'kysely';

/**
 * A counter every writer of a stage's or its results' statuses moves on PostgreSQL (the stage lock of
 * taskstages/task-stages.repository.ts increments it). A callback that read the stage at revision N
 * writes in one statement only if the stage is still at N (TaskStageRunner.finishResult), which spares it
 * the transaction around the lock. Both dialects get the column so the schema is one; SQLite leaves it at 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table task_stages add column revision integer not null default 0`.execute(db);
}
