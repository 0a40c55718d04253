import type { Kysely } from 'kysely';
import { compiledOnce, type QueryRunner } from '../db/compiled-query.js';
import type { Database, TaskResultsTable, TaskStagesTable } from '../db/schema.js';

/** The repository's StageInOrganization and TaskResultRow (named here by their tables: it imports this file). */
type StageInOrganization = TaskStagesTable & { organization_name: string };
type TaskResultRow = TaskResultsTable;

/**
 * Each column of the stage, under the name it takes beside its results' own columns (they share id, run_id,
 * stage, status, …). A column added to task_stages without its name here does not compile, so the stage read
 * with its results is always the whole row.
 */
const STAGE_COLUMNS: Record<keyof TaskStagesTable, string> = {
  id: 'stage__id',
  run_id: 'stage__run_id',
  stage: 'stage__stage',
  status: 'stage__status',
  status_timestamps: 'stage__status_timestamps',
  required_approvals: 'stage__required_approvals',
  created_at: 'stage__created_at',
  updated_at: 'stage__updated_at',
};
const ORGANIZATION_COLUMN = 'stage__organization_name';
const STAGE_PREFIX = 'stage__';

type JoinedRow = TaskResultRow & Record<string, unknown>;

/**
 * SQLite's read of a result's stage (with its organization) and all the stage's results, in one statement:
 * what finishing a result needs before it writes (result-reports.ts), where PostgreSQL first takes the stage's
 * row lock and so reads the stage in that statement. SQLite needs no lock (TaskStagesRepository.locksRows):
 * one statement less per callback of a run task fan-out. The results come in stage order (creation order).
 */
export function stageWithResultsReader(db: Kysely<Database>) {
  const query = compiledOnce((p: { id: string }) =>
    db
      .selectFrom('task_results as r')
      .innerJoin('task_stages as s', 's.id', 'r.task_stage_id')
      .selectAll('r')
      .select((eb) => [
        ...(Object.entries(STAGE_COLUMNS) as Array<[keyof TaskStagesTable, string]>).map(([column, alias]) => eb.ref(`s.${column}`).as(alias)),
        eb.selectFrom('runs').innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id').select('workspaces.organization_name')
          .whereRef('runs.id', '=', 's.run_id').$asScalar().as(ORGANIZATION_COLUMN),
      ])
      .where('r.task_stage_id', '=', (eb) => eb.selectFrom('task_results').select('task_stage_id').where('task_results.id', '=', p.id).$asScalar())
      .orderBy('r.created_at')
      .orderBy('r.id'),
  );
  return async (executor: QueryRunner, resultId: string): Promise<{ stage?: StageInOrganization; results: TaskResultRow[] }> => {
    const rows = (await query(executor, { id: resultId })).rows as JoinedRow[];
    if (rows.length === 0) return { results: [] };
    const first = rows[0]!;
    const stage = Object.fromEntries(Object.entries(STAGE_COLUMNS).map(([column, alias]) => [column, first[alias]])) as unknown as TaskStagesTable;
    // Each result built from its own columns (not a copy with the stage's deleted: `delete` leaves V8 a slow object).
    const results = rows.map((row) => {
      const result: Record<string, unknown> = {};
      for (const key in row) if (!key.startsWith(STAGE_PREFIX)) result[key] = row[key];
      return result as unknown as TaskResultRow;
    });
    return { stage: { ...stage, organization_name: first[ORGANIZATION_COLUMN] as string }, results };
  };
}
