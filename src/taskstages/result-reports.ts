import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import { jobParams } from '../jobs/job-statements.js';
import type { Jobs } from '../jobs/jobs.js';
import { withTimestamp } from '../core/status-timestamps.js';
import { resultsSummary } from './stage-record.js';
import { JOB_KINDS } from './stage-job-kinds.js';
import { resultMember } from './stage-settlement-rule.js';
import type { StageMemberSource, StageMembers, StageSettlement } from './stage-settlement.js';
import { OPEN_RESULT_STATUSES, isFinalResultStatus, type EnforcementLevel, type ResultStatus } from './stage-status.js';
import type { OutcomeRow, ResultInOrganization, TaskResultRow, TaskStagesRepository } from './task-stages.repository.js';

/** What a finishing call did, with the result as it wrote it ('changed') or found it ('final'). */
export type Finished = { outcome: 'changed' | 'final'; result: TaskResultRow } | { outcome: 'missing'; result?: undefined };

export interface ResultReport {
  message?: string | null;
  url?: string | null;
  /** Replaces the stored outcomes when given. */
  outcomes?: Array<Omit<OutcomeRow, 'task_result_id'>>;
}

/** The settings the runner needs (from config.ts, passed in services.ts: a domain does not read configuration). */
export interface StageTimeLimits {
  callbackTimeoutSeconds: number;
  maxDurationSeconds: number;
}

/** Run task results as members of their stage (stage-settlement.ts): their facts, and their words for the record. */
export function taskResultMembers(stages: TaskStagesRepository): StageMemberSource {
  return {
    async membersOf(executor, stageId) {
      return resultMembers(await stages.resultsOfStages([stageId], executor));
    },
  };
}

/** A stage's results (all of them, in stage order) as settlement's members. */
function resultMembers(results: readonly TaskResultRow[]): StageMembers {
  return {
    facts: results.map((result) => resultMember({ status: result.status, enforcementLevel: result.enforcement_level })),
    words: resultsSummary(results, false),
  };
}

/**
 * What delivery and the task's callbacks report about a result: running, delivered (the callback deadline
 * counts from then), finished (its stage settles when that was its last open member). Every status write
 * locks the stage first and is conditional on the current status, so a final status never changes.
 */
export class ResultReports {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly stages: TaskStagesRepository,
    private readonly jobs: Jobs,
    private readonly limits: StageTimeLimits,
    private readonly settlement: StageSettlement,
  ) {}

  /**
   * Moves an open result to a final status (with message, url, outcomes) and settles its stage when that
   * was the last open result. `guard` sees the locked, fresh row and may decline (a timeout that was
   * refreshed meanwhile). Answers whether this call wrote the final status, and the result as written.
   */
  async finishResult(
    resultId: string,
    to: Exclude<ResultStatus, 'pending' | 'running'>,
    report: ResultReport = {},
    guard?: (fresh: TaskResultRow) => boolean,
  ): Promise<Finished> {
    return this.db.transaction().execute(async (trx): Promise<Finished> => {
      const stage = await this.stages.lockedStageOfResult(trx, resultId);
      // Read after the lock: every writer of their statuses holds it, so they stay as read until commit.
      const results = stage ? await this.stages.resultsOfStages([stage.id], trx) : [];
      const fresh = results.find((result) => result.id === resultId);
      if (!stage || !fresh) return { outcome: 'missing' };
      if (isFinalResultStatus(fresh.status)) return { outcome: 'final', result: fresh };
      if (guard && !guard(fresh)) return { outcome: 'final', result: fresh };
      const now = nowIso();
      const changes = {
        status: to,
        status_timestamps: withTimestamp(fresh.status_timestamps, to, now),
        ...(report.message !== undefined ? { message: report.message } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        updated_at: now,
      };
      // A guard judged the row as read: the write holds only if it is unchanged (markDelivered refreshes
      // updated_at without the stage lock).
      const ifUpdatedAt = guard ? fresh.updated_at : undefined;
      if (!(await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, changes, ifUpdatedAt))) return { outcome: 'final', result: fresh };
      if (report.outcomes) await this.stages.replaceOutcomes(trx, resultId, report.outcomes.map((o) => ({ ...o, task_result_id: resultId })));
      // Its deadlines can no longer matter: gone now, not hours later (issue 40: `scheduled` grew with every run).
      if (isFinalResultStatus(to)) await this.jobs.cancel(trx, [`${JOB_KINDS.callbackTimeout}:${resultId}`, `${JOB_KINDS.maxDuration}:${resultId}`]);
      const written = { ...fresh, ...changes };
      // The stage's results as read under the lock, with this write: settlement need not read them again.
      const members = resultMembers(results.map((result) => (result.id === resultId ? written : result)));
      await this.settlement.settleLocked(trx, stage, { 'task-result': members });
      return { outcome: 'changed', result: written };
    });
  }

  /**
   * The task said it is working: `running` with `running-at`, message/url/outcomes if sent, and a fresh
   * callback deadline (a new timeout job keyed by the new update time; older ones find it moved).
   */
  async markRunning(resultId: string, report: ResultReport = {}, seen?: ResultInOrganization): Promise<Finished> {
    if (seen?.id === resultId && !isFinalResultStatus(seen.status)) {
      const written = await this.markRunningAsSeen(seen, report);
      if (written) return { outcome: 'changed', result: written };
    }
    return this.db.transaction().execute(async (trx): Promise<Finished> => {
      const fresh = await this.lockedResult(trx, resultId);
      if (!fresh) return { outcome: 'missing' };
      if (isFinalResultStatus(fresh.status)) return { outcome: 'final', result: fresh };
      const now = nowIso();
      const changes = {
        status: 'running' as const,
        status_timestamps: withTimestamp(fresh.status_timestamps, 'running', now),
        ...(report.message !== undefined ? { message: report.message } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        updated_at: now,
      };
      if (!(await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, changes))) return { outcome: 'final', result: fresh };
      if (report.outcomes) await this.stages.replaceOutcomes(trx, resultId, report.outcomes.map((o) => ({ ...o, task_result_id: resultId })));
      await this.scheduleCallbackTimeout(trx, resultId, now, fresh.organization_name);
      return { outcome: 'changed', result: { ...fresh, ...changes } };
    });
  }

  /**
   * markRunning from the row `seen` read without a lock (with the callback's token): its writes hold only if
   * the result's status and status timestamps are still as seen, which is all they were derived from, so
   * the outcome is the locked path's (a status never leaves a final one: `seen` is open, and the write
   * needs it unchanged). Needs no stage lock: `running` is open like `pending`, so no settlement depends
   * on it. PostgreSQL: one statement, the deadline job included (a data-modifying WITH); SQLite: a
   * transaction without a read. Answers the result as written, or undefined when it changed meanwhile
   * (the caller then takes the locked path).
   */
  private async markRunningAsSeen(seen: ResultInOrganization, report: ResultReport): Promise<ResultInOrganization | undefined> {
    const now = nowIso();
    const changes = {
      status: 'running' as const,
      status_timestamps: withTimestamp(seen.status_timestamps, 'running', now),
      ...(report.message !== undefined ? { message: report.message } : {}),
      ...(report.url !== undefined ? { url: report.url } : {}),
      updated_at: now,
    };
    const written = { ...seen, ...changes };
    const job = this.callbackTimeoutJob(seen.id, now, seen.organization_name);
    if (this.stages.locksRows && !report.outcomes) {
      return (await this.stages.updateResultAsSeen(this.db, seen, changes, jobParams(job, now))) ? written : undefined;
    }
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.stages.updateResultAsSeen(trx, seen, changes))) return undefined;
      if (report.outcomes) await this.stages.replaceOutcomes(trx, seen.id, report.outcomes.map((o) => ({ ...o, task_result_id: seen.id })));
      await this.jobs.enqueue(trx, job);
      return written;
    });
  }

  /**
   * The task accepted the request: the callback deadline counts from now. Pass the caller's transaction.
   * The update is conditional on an open status, so it needs no read first: a final result stays as it
   * is. It takes no stage lock: it changes no status, and the one decision that reads updated_at, a
   * callback timeout, writes only if updated_at is still what it judged (finishResult's guard).
   * PostgreSQL does the same writes in delivery's single statement (DeliveryRepository.finishAcceptedAttempt).
   */
  async markDelivered(trx: Executor, resultId: string, organizationName: string): Promise<void> {
    const now = nowIso();
    if (await this.stages.updateResult(trx, resultId, OPEN_RESULT_STATUSES, { updated_at: now })) {
      await this.scheduleCallbackTimeout(trx, resultId, now, organizationName);
    }
  }

  async scheduleCallbackTimeout(executor: Executor, resultId: string, from: string, organizationName: string): Promise<void> {
    await this.jobs.enqueue(executor, this.callbackTimeoutJob(resultId, from, organizationName));
  }

  /**
   * The job that errors the result unless it hears from the task within the callback timeout of `from`, in
   * the share of the run's organization (jobs/job-lanes.ts).
   */
  callbackTimeoutJob(resultId: string, from: string, organizationName: string): NewJob {
    return {
      kind: JOB_KINDS.callbackTimeout,
      payload: { resultId },
      runAt: new Date(Date.parse(from) + this.limits.callbackTimeoutSeconds * 1000),
      // One deadline job per result, moved by every refresh (a chatty task does not pile up rows).
      dedupeKey: `${JOB_KINDS.callbackTimeout}:${resultId}`,
      replace: true,
      organizationName,
    };
  }

  /** The result, read after taking its stage's row lock (PostgreSQL), so status checks and writes are serialized. */
  private async lockedResult(executor: Executor, resultId: string): Promise<ResultInOrganization | undefined> {
    await this.stages.lockStageOfResult(executor, resultId);
    return this.stages.findResultInOrganization(resultId, executor);
  }
}
