import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { Jobs } from '../jobs/jobs.js';
import { runAdvanceJob } from '../runs/run-advance-job.js';
import { parseTimestamps, timestampKey, withTimestamp } from '../core/status-timestamps.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { stageWords } from '../runs/run-event-descriptions.js';
import { JOB_KINDS } from './stage-job-kinds.js';
import { settledStatus, type MemberFacts, type MemberKind } from './stage-settlement-rule.js';
import type { StageInOrganization, TaskStagesRepository } from './task-stages.repository.js';

/**
 * The port a kind of thing that holds a stage registers with settlement: its members' facts, read under the
 * stage's lock (with the transaction's own writes), and their part of the record's words (null: none).
 */
export interface StageMemberSource {
  membersOf(executor: Executor, stageId: string): Promise<StageMembers>;
}

/** A kind's members of one stage: their facts, and their part of the record's words (null: none). */
export interface StageMembers {
  facts: MemberFacts[];
  words: string | null;
}

/** One source per kind: a kind added to MEMBER_KINDS without its source does not compile. */
export type StageMemberSources = Record<MemberKind, StageMemberSource>;

/**
 * Stage settlement in one place: with the stage locked, once no member is open, the stage takes the status the
 * pure rule (stage-settlement-rule.ts) derives from all its members' facts, the run's record says so, and the
 * run is told. Every finisher (a result report, an evaluation, the settle job) ends here.
 */
export class StageSettlement {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly stages: TaskStagesRepository,
    private readonly jobs: Jobs,
    private readonly recorder: RunRecorder,
    private readonly sources: StageMemberSources,
  ) {}

  registerJobs(): void {
    this.jobs.register(JOB_KINDS.settle, (payload: { stageId: string }) => this.settle(payload.stageId));
  }

  /** Job: re-derive a stage (one with no members: nothing else will). */
  async settle(stageId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stage = await this.stages.lockedStage(trx, stageId);
      if (stage) await this.settleLocked(trx, stage);
    });
  }

  /**
   * With the stage locked and `stage` read after the lock: settles it once every member is final. `known`:
   * the members of a kind as the caller read them under the same lock, with its own writes (not read again).
   */
  async settleLocked(executor: Executor, stage: StageInOrganization, known: Partial<Record<MemberKind, StageMembers>> = {}): Promise<void> {
    if (stage.status !== 'running') return;
    // A stage with an open member stays running whatever its other members are: the first of a stage's
    // callbacks reads no other kind (one statement less per result of a run task fan-out).
    if (Object.values(known).some((members) => members.facts.some((fact) => fact.state === 'open'))) return;
    const kinds = Object.entries(this.sources) as Array<[MemberKind, StageMemberSource]>;
    const read = await Promise.all(kinds.map(([kind, source]) => known[kind] ?? source.membersOf(executor, stage.id)));
    const derived = settledStatus(read.flatMap((part) => part.facts));
    if (derived === 'running') return;
    // An overridden stage is finished by its override's completion alone; its failed members must not send it
    // back. Only a stage that once awaited an override can have one, so the others need no lookup.
    const onceAwaited = parseTimestamps(stage.status_timestamps)[timestampKey('awaiting_override')] !== undefined;
    if (onceAwaited && (await this.stages.findOverride(stage.id, executor))) return;
    const now = nowIso();
    const settled = await this.stages.updateStage(executor, stage.id, ['running'], {
      status: derived,
      status_timestamps: withTimestamp(stage.status_timestamps, derived, now),
      updated_at: now,
    });
    if (!settled) return;
    const words = read.map((part) => part.words).filter((part): part is string => part !== null).join('; ');
    await this.recorder.record(executor, {
      runId: stage.run_id,
      action: `task_stage_${derived}`,
      description: `The ${stageWords(stage.stage)} task stage ${derived === 'awaiting_override' ? 'awaits an override' : derived}: ${words}`,
      at: now,
    });
    await this.runCanMoveOn(executor, stage.run_id, stage.organization_name);
  }

  /**
   * A stage settled: the run's next step, as the runs domain's job, in the transaction that settled it and in
   * the share of the run's organization.
   */
  async runCanMoveOn(executor: Executor, runId: string, organizationName: string): Promise<void> {
    await this.jobs.enqueue(executor, runAdvanceJob(runId, organizationName));
  }
}
