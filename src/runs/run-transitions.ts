import { nowIso } from '../clock.js';
import type { Executor } from '../jobs/job-queue.js';
import { phasesAfter, type PhaseStatus } from './phase-status.js';
import type { RunStatus } from './run-state-machine.js';
import type { PhaseRow, PhaseTable, RunRow, RunsRepository } from './runs.repository.js';

/** `post_plan_running` → `post-plan-running-at`: the status-timestamps key of a status. */
export function timestampKey(status: string): string {
  return `${status.replace(/_/g, '-')}-at`;
}

export type PhaseDetails = Partial<Pick<PhaseRow, 'has_changes' | 'resource_additions' | 'resource_changes' | 'resource_destructions' | 'json_output'>>;

/**
 * Writes one run status change decided by the state machine: the run (compare-and-set on its old
 * status), its status timestamp, and its plan and apply as phase-status.ts says. Runs inside the
 * caller's transaction so whatever else belongs to the change (a job, a stage start) commits with it.
 */
export class RunTransitions {
  constructor(private readonly runs: RunsRepository) {}

  /** False when the run was no longer in `run.status`: someone else moved it first; nothing was written. */
  async move(executor: Executor, run: RunRow, to: RunStatus, details: Partial<Record<PhaseTable, PhaseDetails>> = {}): Promise<boolean> {
    const now = nowIso();
    const timestamps = { ...JSON.parse(run.status_timestamps), [timestampKey(to)]: now };
    if (!(await this.runs.compareAndSetStatus(executor, run.id, run.status, to, JSON.stringify(timestamps), now))) return false;

    const [plan] = await this.runs.phasesOfRuns('plans', [run.id], executor);
    const [apply] = await this.runs.phasesOfRuns('applies', [run.id], executor);
    if (!plan || !apply) return true;
    const next = phasesAfter(to, { plan: plan.status as PhaseStatus, apply: apply.status as PhaseStatus });
    await this.writePhase(executor, 'plans', plan, next.plan, details.plans, now);
    await this.writePhase(executor, 'applies', apply, next.apply, details.applies, now);
    return true;
  }

  private async writePhase(executor: Executor, table: PhaseTable, row: PhaseRow, status: PhaseStatus, details: PhaseDetails | undefined, now: string): Promise<void> {
    if (status === row.status && !details) return;
    const changes: Parameters<RunsRepository['updatePhase']>[3] = { ...details, updated_at: now };
    if (status !== row.status) {
      changes.status = status;
      changes.status_timestamps = JSON.stringify({ ...JSON.parse(row.status_timestamps), [timestampKey(status)]: now });
    }
    await this.runs.updatePhase(executor, table, row.id, changes);
  }
}
