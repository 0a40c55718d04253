import type { Executor } from '../jobs/job-queue.js';
import type { NewRunStages, NewRunStagesWriter } from '../runs/new-run-stages.js';

/** Task stages' side of run creation (the port in runs/new-run-stages.ts): the inserts of its rows. */
export const newRunStagesWriter: NewRunStagesWriter = {
  tableRows: (rows: NewRunStages) => [
    { table: 'task_stages', rows: rows.stages },
    { table: 'task_results', rows: rows.results },
    { table: 'policy_evaluations', rows: rows.policyEvaluations },
  ],
  async insert(executor: Executor, rows: NewRunStages): Promise<void> {
    if (rows.stages.length > 0) await executor.insertInto('task_stages').values(rows.stages).execute();
    if (rows.results.length > 0) await executor.insertInto('task_results').values(rows.results).execute();
    if (rows.policyEvaluations.length > 0) await executor.insertInto('policy_evaluations').values(rows.policyEvaluations).execute();
  },
};
