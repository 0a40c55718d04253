import type { Kysely } from 'kysely';
import type { Database, PolicyEvaluationsTable, PolicySetOutcomesTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { PolicyEvaluationStatus } from '../shared/policy-evaluation-statuses.js';

export type PolicyEvaluationRow = PolicyEvaluationsTable;
export type PolicySetOutcomeRow = PolicySetOutcomesTable;

/** SQL of policy evaluations and their set outcomes (migration 019). Status writes are conditional, as for results. */
export class PolicyEvaluationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(id: string, executor: Executor = this.db): Promise<PolicyEvaluationRow | undefined> {
    return executor.selectFrom('policy_evaluations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async ofStages(stageIds: readonly string[], executor: Executor = this.db): Promise<PolicyEvaluationRow[]> {
    if (stageIds.length === 0) return [];
    return executor.selectFrom('policy_evaluations').selectAll().where('task_stage_id', 'in', [...stageIds]).orderBy('created_at').orderBy('id').execute();
  }

  async ofRunWithStatus(executor: Executor, runId: string, statuses: readonly PolicyEvaluationStatus[]): Promise<PolicyEvaluationRow[]> {
    return executor.selectFrom('policy_evaluations').selectAll().where('run_id', '=', runId).where('status', 'in', [...statuses]).execute();
  }

  async update(
    executor: Executor,
    id: string,
    fromStatuses: readonly PolicyEvaluationStatus[],
    changes: Partial<Pick<PolicyEvaluationRow, 'status' | 'status_timestamps' | 'result_count' | 'hold' | 'updated_at'>>,
  ): Promise<boolean> {
    const result = await executor.updateTable('policy_evaluations').set(changes).where('id', '=', id).where('status', 'in', [...fromStatuses]).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async replaceOutcomes(executor: Executor, evaluationId: string, rows: PolicySetOutcomeRow[]): Promise<void> {
    await executor.deleteFrom('policy_set_outcomes').where('policy_evaluation_id', '=', evaluationId).execute();
    if (rows.length > 0) await executor.insertInto('policy_set_outcomes').values(rows).execute();
  }

  async findOutcome(id: string): Promise<PolicySetOutcomeRow | undefined> {
    return this.db.selectFrom('policy_set_outcomes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** All set outcomes of an evaluation in order (filters apply to the outcomes inside, so they are read whole). */
  async outcomesOf(evaluationId: string): Promise<PolicySetOutcomeRow[]> {
    return this.db.selectFrom('policy_set_outcomes').selectAll().where('policy_evaluation_id', '=', evaluationId).orderBy('position').execute();
  }
}
