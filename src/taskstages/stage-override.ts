import type { Kysely } from 'kysely';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { Jobs } from '../jobs/jobs.js';
import { withTimestamp, withTimestamps } from '../core/status-timestamps.js';
import type { Actor } from '../record/actor.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { stageWords } from '../runs/run-event-descriptions.js';
import { decideOverride, type ApproverStanding, type OverrideCaller, type OverrideDecision, type OverrideStageFacts } from '../shared/override-rule.js';
import { overrideFactsOf, type ApproverLookup } from './override-facts.js';
import type { PolicyEvaluationsRepository } from './policy-evaluations.repository.js';
import type { StageInOrganization, TaskStageRow, TaskStagesRepository } from './task-stages.repository.js';
import { JOB_KINDS } from './stage-job-kinds.js';
import { runAdvanceJob } from '../runs/run-advance-job.js';

/** What an approved override wrote, for the caller's own writes in the same transaction (the audit trail). */
export interface ApprovedOverride {
  stage: TaskStageRow;
  approvals: number;
  required: number;
  releases: boolean;
}

/** Tries before giving up on a stage other overriders keep changing (each try reads the newcomers' standings). */
const ATTEMPTS = 5;

/**
 * One person's override of a stage, decided by the override rule (shared/override-rule.ts) on the stage as it
 * is under its lock. Every earlier approval is counted again with its overrider's standing now (`approvers`,
 * worked out before the transaction: the gate reads outside it, and SQLite has one connection); an override
 * that lands meanwhile by someone not looked up sends the decision round again.
 */
export class StageOverrides {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly stages: TaskStagesRepository,
    private readonly jobs: Jobs,
    private readonly evaluations: PolicyEvaluationsRepository,
    private readonly recorder: RunRecorder,
  ) {}

  /** An override registers its own completion: the job that passes a released stage. */
  registerJobs(): void {
    this.jobs.register(JOB_KINDS.completeOverride, (payload: { stageId: string }) => this.completeOverride(payload.stageId));
  }

  /**
   * `check` first answers who may (the access table's 404 or 403, thrown), then the rule answers whether the
   * stage awaits an override, whether this person already counted, and whether their approval releases it.
   * Each override is recorded and is an event on the run's record. Released, the stage is `running` again (its
   * first `running-at` kept, `overridden-at` added), the policy evaluations that held it become `overridden`,
   * and a job completes it as `passed`; until then it stays `awaiting_override`.
   */
  async override(
    stageId: string,
    caller: OverrideCaller,
    actor: Actor,
    comment: string | null,
    check: (facts: OverrideStageFacts) => void,
    approvers: ApproverLookup,
    alsoWrite?: (trx: Executor, approved: ApprovedOverride) => Promise<void>,
  ): Promise<{ decision: OverrideDecision; stage?: TaskStageRow }> {
    const known = new Map<string, ApproverStanding | null>();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const unknown = (await this.stages.overridesOf([stageId])).map((row) => row.overridden_by).filter((key) => !known.has(key));
      if (unknown.length > 0) for (const [key, standing] of await approvers(unknown)) known.set(key, standing);
      const decided = await this.db.transaction().execute(async (trx) => {
        const stage = await this.stages.lockedStage(trx, stageId);
        if (!stage) return { decision: { kind: 'not-awaiting', status: 'gone' } as const };
        const overrides = await this.stages.overridesOf([stage.id], trx);
        if (overrides.some((row) => !known.has(row.overridden_by))) return undefined;
        const evaluations = await this.evaluations.ofStages([stage.id], trx);
        const settings = (await this.stages.approvalSettingsOfRuns([stage.run_id], trx)).get(stage.run_id);
        const facts = overrideFactsOf(stage, await this.stages.resultsOfStages([stage.id], trx), evaluations, overrides, known, settings);
        check(facts);
        const decision = decideOverride(caller, facts);
        if (decision.kind !== 'approved') return { decision, stage };
        return this.approve(trx, stage, decision, caller, actor, comment, evaluations, alsoWrite);
      });
      if (decided) return decided;
    }
    throw Errors.taskStageBusy();
  }

  /** Job: an overridden stage passes and the run goes on. Idempotent: only a running, overridden stage moves. */
  async completeOverride(stageId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stage = await this.stages.lockedStage(trx, stageId);
      if (!stage || stage.status !== 'running' || !(await this.stages.findOverride(stageId, trx))) return;
      const now = nowIso();
      const passed = await this.stages.updateStage(trx, stageId, ['running'], {
        status: 'passed',
        status_timestamps: withTimestamp(stage.status_timestamps, 'passed', now),
        updated_at: now,
      });
      if (!passed) return;
      await this.recorder.record(trx, { runId: stage.run_id, action: 'task_stage_passed', description: `The ${stageWords(stage.stage)} task stage passed after its override`, at: now });
      await this.jobs.enqueue(trx, runAdvanceJob(stage.run_id, stage.organization_name));
    });
  }

  private async approve(
    trx: Executor,
    stage: StageInOrganization,
    decision: OverrideDecision & { kind: 'approved' },
    caller: OverrideCaller,
    actor: Actor,
    comment: string | null,
    evaluations: Awaited<ReturnType<PolicyEvaluationsRepository['ofStages']>>,
    alsoWrite?: (trx: Executor, approved: ApprovedOverride) => Promise<void>,
  ): Promise<{ decision: OverrideDecision; stage?: TaskStageRow }> {
    const { approvals, required } = decision;
    const now = nowIso();
    await this.stages.insertOverride(trx, {
      id: newId('tso'), task_stage_id: stage.id, run_id: stage.run_id, overridden_by: caller.overrider, overridden_by_name: actor.name, comment, created_at: now,
    });
    await this.recorder.record(trx, {
      runId: stage.run_id,
      action: 'overridden',
      description: `${actor.name} overrode the ${stageWords(stage.stage)} task stage (${approvals} of ${required} approval${required === 1 ? '' : 's'})`,
      actor,
      comment,
      at: now,
    });
    // In the same transaction (the organization's audit trail).
    await alsoWrite?.(trx, { stage, approvals, required, releases: decision.releases });
    if (!decision.releases) return { decision, stage };
    const changes = { status: 'running' as const, status_timestamps: withTimestamps(stage.status_timestamps, ['running', 'overridden'], now, true), updated_at: now };
    if (!(await this.stages.updateStage(trx, stage.id, ['awaiting_override'], changes))) return { decision: { kind: 'not-awaiting', status: stage.status } };
    // HCP shows a policy evaluation that held the stage as `overridden` once released.
    for (const evaluation of evaluations) {
      if (evaluation.hold !== 'override') continue;
      await this.evaluations.update(trx, evaluation.id, ['failed'], {
        status: 'overridden',
        status_timestamps: withTimestamp(evaluation.status_timestamps, 'overridden', now),
        updated_at: now,
      });
    }
    await this.jobs.enqueue(trx, { kind: JOB_KINDS.completeOverride, payload: { stageId: stage.id }, dedupeKey: `${JOB_KINDS.completeOverride}:${stage.id}`, organizationName: stage.organization_name });
    return { decision, stage: { ...stage, ...changes } };
  }
}
