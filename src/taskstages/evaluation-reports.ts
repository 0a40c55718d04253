import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import { withTimestamp } from '../core/status-timestamps.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { evaluationMember } from './stage-settlement-rule.js';
import type { StageMemberSource, StageSettlement } from './stage-settlement.js';
import { OPEN_POLICY_EVALUATION_STATUSES, type PolicyFacts } from './stage-status.js';
import type { PolicyEvaluationRow, PolicyEvaluationsRepository, PolicySetOutcomeRow } from './policy-evaluations.repository.js';
import type { TaskStagesRepository } from './task-stages.repository.js';

/** What an evaluation job found, written with the evaluation's final status (policy-evaluation-job.ts). */
export interface EvaluationReport {
  status: 'passed' | 'failed' | 'errored';
  hold: PolicyFacts['hold'];
  resultCount: string;
  outcomes: PolicySetOutcomeRow[];
}

/** Policy evaluations as members of their stage (stage-settlement.ts); the record's words are the results'. */
export function policyEvaluationMembers(evaluations: PolicyEvaluationsRepository): StageMemberSource {
  return {
    async membersOf(executor, stageId) {
      const rows = await evaluations.ofStages([stageId], executor);
      return { facts: rows.map((row) => evaluationMember({ status: row.status, hold: row.hold })), words: null };
    },
  };
}

/** What the policy evaluation job reports: started, finished (with its outcomes; its stage settles). */
export class EvaluationReports {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly stages: TaskStagesRepository,
    private readonly evaluations: PolicyEvaluationsRepository,
    private readonly recorder: RunRecorder,
    private readonly settlement: StageSettlement,
  ) {}

  /** The evaluation job began: `running` (once; a job run again after a crash finds it running and goes on). */
  async startEvaluation(evaluationId: string): Promise<PolicyEvaluationRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const evaluation = await this.evaluations.find(evaluationId, trx);
      if (!evaluation || !OPEN_POLICY_EVALUATION_STATUSES.includes(evaluation.status)) return undefined;
      if (evaluation.status === 'running') return evaluation;
      await this.stages.lockStage(trx, evaluation.task_stage_id);
      const now = nowIso();
      const changes = { status: 'running' as const, status_timestamps: withTimestamp(evaluation.status_timestamps, 'running', now), updated_at: now };
      if (!(await this.evaluations.update(trx, evaluation.id, ['pending'], changes))) return undefined;
      return { ...evaluation, ...changes };
    });
  }

  /**
   * An evaluation finished: its outcomes and final status are written and its stage settles with its results,
   * under the stage lock, once. Answers whether this call wrote it (false: it was final or canceled meanwhile).
   */
  async finishEvaluation(evaluationId: string, report: EvaluationReport): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const first = await this.evaluations.find(evaluationId, trx);
      if (!first) return false;
      const stage = await this.stages.lockedStage(trx, first.task_stage_id);
      const evaluation = await this.evaluations.find(evaluationId, trx);
      if (!stage || !evaluation || !OPEN_POLICY_EVALUATION_STATUSES.includes(evaluation.status)) return false;
      const now = nowIso();
      const written = await this.evaluations.update(trx, evaluation.id, OPEN_POLICY_EVALUATION_STATUSES, {
        status: report.status,
        status_timestamps: withTimestamp(evaluation.status_timestamps, report.status, now),
        result_count: report.resultCount,
        hold: report.hold,
        updated_at: now,
      });
      if (!written) return false;
      await this.evaluations.replaceOutcomes(trx, evaluation.id, report.outcomes);
      // The run's record (src/record) has each evaluation, written with it.
      const count = JSON.parse(report.resultCount) as Record<string, number>;
      await this.recorder.record(trx, {
        runId: evaluation.run_id,
        action: `policy_evaluation_${report.status}`,
        description:
          `The policy evaluation ${report.status}: ${count.passed ?? 0} passed, ${count['advisory-failed'] ?? 0} advisory failed, ` +
          `${count['mandatory-failed'] ?? 0} mandatory failed, ${count.errored ?? 0} errored`,
        at: now,
      });
      await this.settlement.settleLocked(trx, stage);
      return true;
    });
  }
}
