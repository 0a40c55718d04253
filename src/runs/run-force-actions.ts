import type { Kysely } from 'kysely';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { runDecided } from '../record/run-decision-audit.js';
import { requireAccess } from '../access/require-access.js';
import { parseTimestamps } from '../core/status-timestamps.js';
import type { Database } from '../db/schema.js';
import { Errors } from '../core/errors.js';
import type { Executor } from '../jobs/job-queue.js';
import { actorOf, type Actor } from '../record/actor.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import { forceCancelRefusal } from './force-cancel.js';
import { runFactsOf } from './run-facts.js';
import type { RunProgress } from './run-progress.js';
import { takesTurns } from './run-queue.js';
import { isDiscardable, transition, type RunStatus } from './run-state-machine.js';
import type { RunTransitions } from './run-transitions.js';
import type { RunRow, RunsRepository } from './runs.repository.js';
import type { VisibleRun } from './runs.service.js';
import { runIdsAhead } from './workspace-queue.repository.js';

/**
 * HCP's forceful run actions. force-cancel: see force-cancel.ts. force-execute: a run waiting `pending` for its
 * turn goes first; every run ahead of it in the workspace's queue is discarded when it waits for a person
 * (pending, awaiting a confirmation or an override) and canceled when it is working, as HCP does; the turn they
 * give back starts the forced run (run-queue.ts). A workspace locked by someone stays locked: its lock is a freeze.
 */
export class RunForceActions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runs: RunsRepository,
    private readonly workspaces: Pick<WorkspacesRepository, 'findById'>,
    private readonly transitions: RunTransitions,
    private readonly progress: Pick<RunProgress, 'closeOpenStages'>,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async forceCancel(found: VisibleRun, comment: string | null): Promise<void> {
    requireAccess(found.context.standing, 'run', 'act', { action: 'force-cancel' });
    const actor = actorOf(found.context.standing.principal);
    await this.retried(async (trx) => {
      const run = await this.runs.findRun(found.run.id, trx);
      if (!run) throw Errors.runNotFound();
      const why = forceCancelRefusal(run.status, parseTimestamps(run.status_timestamps), new Date());
      if (why !== null) throw Errors.runActionRefused('force-canceled', why);
      return this.moveAside(trx, run, 'canceled', 'force-cancel', found.context.organization.name, actor, comment);
    });
  }

  async forceExecute(found: VisibleRun, comment: string | null): Promise<void> {
    requireAccess(found.context.standing, 'run', 'act', { action: 'force-execute' });
    const actor = actorOf(found.context.standing.principal);
    const organization = found.context.organization.name;
    await this.retried(async (trx) => {
      // The queue's lock: no run of the workspace takes the turn while the runs ahead are moved aside.
      await this.runs.lockWorkspaceTurn(trx, found.run.workspace_id);
      const run = await this.runs.findRun(found.run.id, trx);
      if (!run) throw Errors.runNotFound();
      if (run.status !== 'pending') throw Errors.runActionRefused('force-executed', `it is ${run.status}, not pending`);
      if (!takesTurns(run)) throw Errors.runActionRefused('force-executed', 'a plan-only run never waits for its turn');
      const workspace = await this.workspaces.findById(run.workspace_id, trx);
      if (Number(workspace?.locked) === 1) throw Errors.runActionRefused('force-executed', 'its workspace is locked; unlock it first');
      const why = comment ?? `Moved aside to force-execute ${run.id}`;
      for (const id of await runIdsAhead(trx, run)) {
        const ahead = await this.runs.findRun(id, trx);
        if (!ahead) continue;
        const stages = await this.runs.taskStagesOf(id, trx);
        const { plan } = await this.runs.planAndApplyOf(id, trx);
        const facts = runFactsOf(ahead, stages, plan?.has_changes === 1);
        const event = isDiscardable(ahead.status, facts) ? 'discard' : 'cancel';
        const to = transition(ahead.status, event, facts);
        if (!to) throw Errors.runActionRefused('force-executed', `the run ahead of it, ${id}, can be neither discarded nor canceled (it is ${ahead.status})`);
        if (!(await this.moveAside(trx, ahead, to, 'force-execute', organization, actor, why))) return false;
      }
      return true;
    });
  }

  /** One run moved to `to` (canceled or discarded), on its record and the audit trail, its open stages closed. False: it moved meanwhile. */
  private async moveAside(
    trx: Executor,
    run: RunRow,
    to: RunStatus,
    action: 'force-cancel' | 'force-execute',
    organization: string,
    actor: Actor,
    comment: string | null,
  ): Promise<boolean> {
    if (!(await this.transitions.move(trx, { ...run, organizationName: organization }, to, {}, {}, { actor, comment }))) return false;
    await this.auditTrail.record(trx, runDecided(organization, actor, { id: run.id, workspaceId: run.workspace_id, from: run.status, to }, action, comment));
    await this.progress.closeOpenStages(trx, run.id, to === 'discarded' ? 'discard' : 'cancel');
    return true;
  }

  /** A compare-and-set that loses to run progress re-reads and decides again (as RunsService.act). */
  private async retried(decide: (trx: Executor) => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await this.db.transaction().execute(decide)) return;
    }
    throw Errors.runBusy();
  }
}
