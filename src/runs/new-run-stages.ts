import type { TableRows } from '../db/multi-table-insert.js';
import type { PolicyEvaluationsTable, TaskResultsTable, TaskStagesTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';

/** A new run's task stages, each with one pending result per task (new-run-rows.ts). */
export interface NewRunStages {
  stages: TaskStagesTable[];
  results: TaskResultsTable[];
  /** A pending policy evaluation for the post-plan stage when policy sets apply (issue 29). */
  policyEvaluations: PolicyEvaluationsTable[];
}

/**
 * Port: writes the task stage and result rows of a new run. A run is created with its stages, but
 * task stages own those tables and sit above runs in the layers (issue 15), so src/taskstages
 * implements this and services.ts plugs it into RunsRepository.
 */
export interface NewRunStagesWriter {
  /** PostgreSQL: the rows as tables of the run's one multi-table insert (db/multi-table-insert.ts). */
  tableRows(rows: NewRunStages): TableRows[];
  /** SQLite: inserts the rows with the caller's executor, inside the run's transaction. */
  insert(executor: Executor, rows: NewRunStages): Promise<void>;
}
