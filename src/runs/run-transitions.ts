import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { withTimestamps } from '../core/status-timestamps.js';
import type { Executor } from '../jobs/job-queue.js';
import { mayMovePhases, phasesAfter, type PhaseStatus } from './phase-status.js';
import type { RunStatus } from './run-state-machine.js';
import { mayReleaseTurn, queueNextJob, takesTurns, TURNLESS_STATUSES } from './run-queue.js';
import { agentClaimTimeoutJob, AWAITS_CLAIM } from './agent-phase-timeout.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import { takeWorkspaceTurn } from '../workspaces/workspace-current-run.js';
import type { NewJob } from '../jobs/job-queue.js';
import type { PhaseUploadsRepository } from './phase-uploads.repository.js';
import type { Actor } from '../record/actor.js';
import type { RunRecorder } from '../record/run-record.repository.js';
import { describeRunStatus } from './run-event-descriptions.js';
import type { TaskStagePort } from './task-stage-port.js';
import type { ConfigurationVersionsRepository } from '../workspaces/configuration-versions.repository.js';
import type { PhaseChanges, PhaseRow, PhaseTable, RunsRepository } from './runs.repository.js';
import type { RunInOrganization } from './run-in-organization.js';

/** What a phase's outcome writes on the plan or apply with the status change. */
export type PhaseDetails = Pick<PhaseChanges, 'has_changes' | 'resource_additions' | 'resource_changes' | 'resource_destructions' | 'resource_imports' | 'agent_report'> & {
  /** The executor's plan JSON (small: the built-in executor's), stored as an upload of the plan. */
  planJson?: string;
};

/**
 * The run's plan and apply rows as last read or written in the current transaction. Several moves in one
 * transaction share one, so the phases are read once rather than on every move.
 */
export interface PhaseCache {
  plan?: PhaseRow;
  apply?: PhaseRow;
}

/** Who or what caused a status change, for the run's record. */
export interface TransitionCause {
  /** Whoever decided it: confirm, discard, cancel, a pipeline's claim or report. Absent: Teamstage itself. */
  actor?: Actor | null;
  /** The comment given with the decision, stored as a comment of the run. */
  comment?: string | null;
  /** Why the run errored: written on the run (`error-message`) and in its `errored` event. */
  reason?: string;
}

/**
 * Writes one run status change decided by the state machine: the run (compare-and-set on its old
 * status), its status timestamp, and its plan and apply as phase-status.ts says. Runs inside the
 * caller's transaction so whatever else belongs to the change (a job, a stage start) commits with it.
 */
export class RunTransitions {
  constructor(
    private readonly runs: RunsRepository,
    private readonly jobs: { enqueue(executor: Executor, job: NewJob): Promise<void> },
    private readonly uploads: PhaseUploadsRepository,
    private readonly stages: Pick<TaskStagePort, 'closeUnreachedStages'>,
    private readonly recorder: RunRecorder,
    /** A provisional configuration version becomes current when its run is applied (HCP). */
    private readonly versions: Pick<ConfigurationVersionsRepository, 'promoteProvisional'>,
    /** TEAMSTAGE_AGENT_CLAIM_TIMEOUT: seconds an agent-mode run waits for a pipeline's claim before it errors. */
    private readonly claimTimeoutSeconds?: number,
  ) {}

  /**
   * The run as written, or undefined when it was no longer in `run.status`: someone else moved it first
   * and nothing was written.
   */
  async move(
    executor: Executor,
    run: RunInOrganization,
    to: RunStatus,
    details: Partial<Record<PhaseTable, PhaseDetails>> = {},
    phases: PhaseCache = {},
    cause: TransitionCause = {},
  ): Promise<RunInOrganization | undefined> {
    return this.moveThrough(executor, run, [to], details, phases, cause);
  }

  /**
   * `move` through several statuses in a row (each one allowed after the one before), written as one
   * status change: one compare-and-set from `run.status` to the last, with a timestamp for every status
   * passed, and each phase written at most once with the timestamps of every phase status it passed.
   * Nobody outside the transaction could have seen the statuses in between anyway.
   */
  async moveThrough(
    executor: Executor,
    run: RunInOrganization,
    path: readonly RunStatus[],
    details: Partial<Record<PhaseTable, PhaseDetails>> = {},
    phases: PhaseCache = {},
    cause: TransitionCause = {},
  ): Promise<RunInOrganization | undefined> {
    const to = path[path.length - 1];
    if (!to) return run;
    const now = nowIso();
    const timestamps = withTimestamps(run.status_timestamps, path, now);
    const error = to === 'errored' ? (cause.reason ?? 'the run errored') : null;
    if (!(await this.runs.compareAndSetStatus(executor, run.id, run.status, to, timestamps, now, error))) return undefined;
    const moved = { ...run, status: to, status_timestamps: timestamps, updated_at: now, error_message: error };
    // The record: one event per status entered; the decision's comment goes with the first.
    await this.recorder.record(
      executor,
      ...path.map((status, index) => ({
        runId: run.id,
        action: status,
        description: describeRunStatus(status, cause.actor, cause.reason),
        actor: cause.actor ?? null,
        comment: index === 0 ? cause.comment : null,
        at: now,
      })),
    );
    if (path.includes('applied') && run.configuration_version_id) await this.versions.promoteProvisional(executor, run.configuration_version_id);
    // Stages the run will never reach are unreachable, not pending (errors say why; no-changes runs end early).
    if (to === 'errored' || to === 'planned_and_finished') await this.stages.closeUnreachedStages(executor, run.id, to === 'errored' ? 'errored' : 'finished');
    // A run leaving `pending` for work takes its workspace's turn: the workspace's current-run names it.
    if (takesTurns(run) && run.status === 'pending' && !TURNLESS_STATUSES.includes(to)) await takeWorkspaceTurn(executor, run.workspace_id, run.id);
    // The run may have given its workspace's turn back: wake the next one, after this commits (run-queue.ts).
    if (takesTurns(run) && mayReleaseTurn(to)) await this.jobs.enqueue(executor, queueNextJob(run.workspace_id, run.organizationName));
    // A phase a pipeline must claim: the run errors if none does in time, rather than hold the workspace forever.
    if (this.claimTimeoutSeconds !== undefined && AWAITS_CLAIM[to] && executionModeOf(run.execution_mode) === 'agent') {
      await this.jobs.enqueue(executor, agentClaimTimeoutJob({ runId: run.id, status: to }, new Date(Date.now() + this.claimTimeoutSeconds * 1000), run.organizationName));
    }
    // Most stage steps (`post_plan_running`, `post_plan_completed`, …) leave the phases alone: no read.
    if (!path.some(mayMovePhases) && !details.plans && !details.applies) return moved;

    if (!phases.plan || !phases.apply) Object.assign(phases, await this.runs.planAndApplyOf(run.id, executor));
    if (!phases.plan || !phases.apply) return moved;
    let current = { plan: phases.plan.status, apply: phases.apply.status };
    const passed: { plan: PhaseStatus[]; apply: PhaseStatus[] } = { plan: [], apply: [] };
    for (const status of path) {
      const next = phasesAfter(status, current);
      if (next.plan !== current.plan) passed.plan.push(next.plan);
      if (next.apply !== current.apply) passed.apply.push(next.apply);
      current = next;
    }
    phases.plan = await this.writePhase(executor, 'plans', phases.plan, passed.plan, details.plans, now);
    phases.apply = await this.writePhase(executor, 'applies', phases.apply, passed.apply, details.applies, now);
    return moved;
  }

  /** Answers the row as written (unchanged when there was nothing to write). `passed`: the statuses it went through, the last one kept. */
  private async writePhase(executor: Executor, table: PhaseTable, row: PhaseRow, passed: readonly PhaseStatus[], details: PhaseDetails | undefined, now: string): Promise<PhaseRow> {
    const status = passed[passed.length - 1];
    if (!status && !details) return row;
    const { planJson, ...columns } = details ?? {};
    const written: Partial<PhaseRow> = { ...columns, updated_at: now };
    if (planJson !== undefined) {
      written.json_upload_id = newId('upload');
      written.json_bytes = await this.uploads.write(row.run_id, written.json_upload_id, [Buffer.from(planJson, 'utf8')], executor);
    }
    const changes: PhaseChanges = { ...written };
    if (status) {
      changes.status = written.status = status;
      changes.status_timestamps = written.status_timestamps = withTimestamps(row.status_timestamps, passed, now);
    }
    await this.runs.updatePhase(executor, table, row.id, changes);
    return { ...row, ...written };
  }
}
