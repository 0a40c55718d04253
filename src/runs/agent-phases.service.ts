import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import {
  AGENT_CLAIM_TIMEOUT_JOB, AGENT_PHASE_TIMEOUT_JOB, agentPhaseTimeoutJob, AWAITS_CLAIM, isAgentClaimTimeoutPayload, isAgentPhaseTimeoutPayload,
  type AgentClaimTimeoutPayload, type AgentPhaseTimeoutPayload,
} from './agent-phase-timeout.js';
import { reportedCounts, storedReport, type AgentReport } from './agent-report.js';
import { actorOf } from '../record/actor.js';
import { newId } from '../core/ids.js';
import type { PlanJsonChecker } from './plan-json-checker.js';
import type { PlanJsonProblem } from './plan-json-scanner.js';
import { UPLOAD_CHUNK_BYTES, type PhaseUploadsRepository, type StoredUpload } from './phase-uploads.repository.js';
import type { PlanSummary } from './plan-summary.js';
import { runFactsOf } from './run-facts.js';
import type { RunJobs } from './run-progress.js';
import { transition, type RunEvent, type RunStatus } from './run-state-machine.js';
import { runAdvanceJob } from './run-advance-job.js';
import type { RunTransitions } from './run-transitions.js';
import { UPLOAD_COLUMNS, type PhaseChanges, type PhaseRow, type PhaseUploadKind, type RunsRepository } from './runs.repository.js';
import type { RunInOrganization } from './run-in-organization.js';
import { PHASE_TABLE as TABLE, phaseNotFound as notFound, type DrivablePhase, type PhaseKind, type VisiblePhase } from './phase-lookup.js';

export type { PhaseKind };

export interface AgentSettings {
  phaseTimeoutSeconds: number;
  claimTimeoutSeconds: number;
  planJsonMaxBytes: number;
  planJsonMaxDepth: number;
  planJsonMaxValues: number;
  logMaxBytes: number;
}

/** An upload as it arrived, kept outside memory (a spooled request body: http/spooled-body.ts). */
export interface UploadedFile {
  size: number;
  /** The file that holds it, for a check in another thread. */
  path: string;
  read(pieceBytes?: number): AsyncIterable<Buffer>;
}

/** The run's status while the phase is claimed, and the events that start and end it. */
const PHASE_EVENTS: Record<PhaseKind, { running: RunStatus; start: RunEvent; finish: RunEvent }> = {
  plan: { running: 'planning', start: 'start_plan', finish: 'plan_finished' },
  apply: { running: 'applying', start: 'start_apply', finish: 'apply_finished' },
};

/** A compare-and-set lost to run progress (or another request) is decided again, a few times. */
const ATTEMPTS = 5;

/**
 * The agent protocol (docs/agent-protocol.md): in a workspace
 * whose execution mode is `agent`, a pipeline outside Teamstage carries out the plan and the apply of each
 * run. It claims a phase (the run moves to planning / applying), uploads the plan JSON and the log, and
 * reports the phase finished or errored; the run then moves on through run progress as with the built-in
 * executor. Every status change is the state machine's, written with a compare-and-set in one
 * transaction with what belongs to it (the timeout job of a claim, the report on the phase), so claims are
 * exclusive across nodes and a report is recorded once.
 */
export class AgentPhasesService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runs: RunsRepository,
    private readonly uploads: PhaseUploadsRepository,
    private readonly planJsonChecker: PlanJsonChecker,
    private readonly transitions: RunTransitions,
    private readonly jobs: RunJobs,
    private readonly settings: AgentSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  get limits(): Pick<AgentSettings, 'planJsonMaxBytes' | 'logMaxBytes'> {
    return { planJsonMaxBytes: this.settings.planJsonMaxBytes, logMaxBytes: this.settings.logMaxBytes };
  }

  registerJobs(): void {
    this.jobs.register(AGENT_PHASE_TIMEOUT_JOB, async (payload: unknown) => {
      if (isAgentPhaseTimeoutPayload(payload)) await this.timeOut(payload);
    });
    this.jobs.register(AGENT_CLAIM_TIMEOUT_JOB, async (payload: unknown) => {
      if (isAgentClaimTimeoutPayload(payload)) await this.claimTimedOut(payload);
    });
  }

  /** Claims the plan or apply: 409 unless the run waits for exactly this now. */
  async claim(found: DrivablePhase): Promise<PhaseRow> {
    const { kind, run } = found;
    const actor = actorOf(found.context.standing.principal);
    const id = found.phase.id;
    const { running, start } = PHASE_EVENTS[kind];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const claimed = await this.db.transaction().execute(async (trx) => {
        const found = await this.runs.runWithStages(run.id, trx);
        const phase = await this.runs.findPhase(TABLE[kind], id, trx);
        if (!found || !phase) throw notFound(kind);
        const status = found.run.status;
        const to = transition(status, start, runFactsOf(found.run, found.stages, found.planHasChanges));
        if (!to) throw Errors.phaseNotClaimable(kind, status === running ? 'it is already claimed' : `the run is ${status}`);
        if (!(await this.transitions.move(trx, found.run, to, {}, {}, { actor }))) return false;
        const deadline = new Date(Date.now() + this.settings.phaseTimeoutSeconds * 1000);
        await this.jobs.enqueue(trx, agentPhaseTimeoutJob({ runId: run.id, table: TABLE[kind], phaseId: id }, deadline, found.workspace.organizationName));
        return true;
      });
      if (claimed) return this.current(kind, id);
    }
    throw Errors.phaseBusy(kind);
  }

  /**
   * Stores the plan JSON byte for byte with the counts derived from it, both read from the spooled upload
   * piece by piece: the check (JSON, a plan, within the bounds; plan-json-scanner.ts) runs in a worker
   * thread, never on the event loop. A body that fails it changes nothing. Replaces an earlier upload
   * until the report.
   */
  async uploadPlanJson(found: DrivablePhase, body: UploadedFile): Promise<PhaseRow> {
    if (body.size > this.settings.planJsonMaxBytes) throw Errors.uploadTooLarge('plan JSON', this.settings.planJsonMaxBytes);
    const check = await this.planJsonChecker.check(body.path).catch((error: unknown) => {
      // A worker past its heap cap: only a document the bounds should have refused gets there.
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw Errors.planJsonUncheckable();
      throw error;
    });
    if (!check.ok) throw problemError(check.problem);
    return this.store(found, 'json', body, summaryColumns(check.summary));
  }

  /** Stores the phase's log as sent (any bytes), piece by piece; replaces an earlier one until the report. */
  async uploadLog(found: DrivablePhase, body: UploadedFile): Promise<PhaseRow> {
    if (body.size > this.settings.logMaxBytes) throw Errors.uploadTooLarge('log', this.settings.logMaxBytes);
    return this.store(found, 'log', body, {});
  }

  /**
   * Writes the upload's pieces one statement at a time (no transaction holds the database while they go
   * in), then points the phase at it in one statement, if the phase still takes uploads; else the pieces
   * go again. The upload it replaced goes once it is replaced (a crash in between leaves unreferenced
   * pieces, which go with their run). Two uploads at once: the one that attaches second replaces the first.
   */
  private async store(found: DrivablePhase, uploadKind: PhaseUploadKind, body: UploadedFile, changes: Pick<PhaseChanges, 'has_changes' | 'resource_additions' | 'resource_changes' | 'resource_destructions' | 'resource_imports'>): Promise<PhaseRow> {
    const { kind, run } = found;
    const id = found.phase.id;
    const uploadId = newId('upload');
    let replacing = found.phase[UPLOAD_COLUMNS[uploadKind].id];
    let attached: PhaseRow | undefined;
    try {
      const bytes = await this.uploads.write(run.id, uploadId, body.read(UPLOAD_CHUNK_BYTES));
      for (let attempt = 0; attempt < ATTEMPTS && !attached; attempt++) {
        attached = await this.runs.attachUpload(TABLE[kind], id, uploadKind, { id: uploadId, bytes, replacing }, { ...changes, updated_at: nowIso() });
        if (attached) break;
        // Refused: the phase no longer takes uploads, or another upload was attached since it was read.
        const current = await this.runs.findPhase(TABLE[kind], id);
        if (!current || current.status !== 'running' || current.agent_report !== null) throw await this.notRunning(kind, id);
        replacing = current[UPLOAD_COLUMNS[uploadKind].id];
      }
      if (!attached) throw Errors.phaseBusy(kind);
    } catch (error) {
      await this.uploads.remove(uploadId).catch(() => {});
      throw error;
    }
    if (replacing) await this.uploads.remove(replacing);
    return attached;
  }

  /**
   * Ends the claimed phase as the pipeline says; run progress takes it from there (post-plan stage,
   * confirmation, post-apply stage). The same report again answers as the first did; another is a 409,
   * and so is any report once the run was canceled or discarded.
   */
  async report(found: DrivablePhase, report: AgentReport): Promise<PhaseRow> {
    const { kind, run } = found;
    const actor = actorOf(found.context.standing.principal);
    const id = found.phase.id;
    const stored = storedReport(report);
    const { running, finish } = PHASE_EVENTS[kind];
    // A finished apply without counts: they are read from the log it uploaded.
    const log = kind === 'apply' && report.status === 'finished' && !report.counts ? await this.logTail(id) : undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const done = await this.db.transaction().execute(async (trx) => {
        const found = await this.runs.runWithStages(run.id, trx);
        const phase = await this.runs.findPhase(TABLE[kind], id, trx);
        if (!found || !phase) throw notFound(kind);
        const status = found.run.status;
        if (status === 'canceled' || status === 'discarded') throw Errors.phaseEndedWithoutReport(kind, phase.status, status);
        if (phase.agent_report !== null) {
          if (phase.agent_report === stored) return true;
          throw Errors.reportConflicts(kind, describeReport(phase.agent_report));
        }
        if (status !== running || phase.status !== 'running') {
          throw phase.status === 'pending' || phase.status === 'queued' ? Errors.phaseNotRunning(kind, phase.status) : Errors.phaseEndedWithoutReport(kind, phase.status, status);
        }
        if (report.status === 'finished' && kind === 'plan' && !(await this.runs.planHasJson(id, trx))) throw Errors.planJsonMissing();
        const facts = runFactsOf(found.run, found.stages, found.planHasChanges);
        const to = transition(status, report.status === 'finished' ? finish : 'error', facts)!;
        const cause = { actor, ...(report.status === 'errored' ? { reason: `the pipeline reported the ${kind} errored: ${report.message}` } : {}) };
        if (!(await this.transitions.move(trx, found.run, to, { [TABLE[kind]]: { agent_report: stored, ...reportedCounts(kind, report, log) } }, {}, cause))) return false;
        if (report.status === 'errored') this.log.warn({ runId: run.id, phase: kind, message: report.message }, `the pipeline reported the ${kind} errored`);
        await this.advanceLater(trx, found.run);
        return true;
      });
      if (done) return this.current(kind, id);
    }
    throw Errors.phaseBusy(kind);
  }

  /** The end of the apply's uploaded log (where terraform prints `Apply complete!`), read piece by piece, at most 64 KiB kept. */
  private async logTail(applyId: string): Promise<string | undefined> {
    const phase = await this.runs.findPhase('applies', applyId);
    if (!phase?.log_upload_id) return undefined;
    let tail = Buffer.alloc(0);
    for await (const piece of this.uploads.read(phase.log_upload_id)) {
      tail = Buffer.concat([tail, piece]);
      if (tail.length > 65_536) tail = tail.subarray(tail.length - 65_536);
    }
    return tail.toString('utf8');
  }

  /** The log as uploaded (empty until then), for whoever may read the run: its size and its pieces, read as they are sent. */
  async readLog(found: VisiblePhase): Promise<StoredUpload> {
    const { phase } = found;
    if (!phase.log_upload_id) return { size: 0, pieces: [] };
    return { size: phase.log_bytes ?? 0, pieces: this.uploads.read(phase.log_upload_id) };
  }

  /** The timeout job: errors the run if the phase is still claimed and unreported. */
  private async timeOut({ runId, table, phaseId }: AgentPhaseTimeoutPayload): Promise<void> {
    const kind: PhaseKind = table === 'plans' ? 'plan' : 'apply';
    const seconds = this.settings.phaseTimeoutSeconds;
    await this.errorIfStill(runId, kind, `the ${kind} was claimed but not reported within ${seconds} seconds`, async (found, trx) => {
      const phase = await this.runs.findPhase(table, phaseId, trx);
      return found.run.status === PHASE_EVENTS[kind].running && phase !== undefined && phase.agent_report === null;
    });
  }

  /** The claim timeout job: errors the run (releasing its workspace) if it still waits for the claim. */
  private async claimTimedOut({ runId, status }: AgentClaimTimeoutPayload): Promise<void> {
    const kind = AWAITS_CLAIM[status]!;
    const seconds = this.settings.claimTimeoutSeconds;
    await this.errorIfStill(runId, kind, `no pipeline claimed the ${kind} within ${seconds} seconds (TEAMSTAGE_AGENT_CLAIM_TIMEOUT)`, async (found) => found.run.status === status);
  }

  /** Errors the run with `reason` if `stillWaiting` says it waits as the job expected, under a compare-and-set. */
  private async errorIfStill(
    runId: string,
    kind: PhaseKind,
    reason: string,
    stillWaiting: (found: NonNullable<Awaited<ReturnType<RunsRepository['runWithStages']>>>, trx: Executor) => Promise<boolean>,
  ): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const settled = await this.db.transaction().execute(async (trx) => {
        const found = await this.runs.runWithStages(runId, trx);
        if (!found || !(await stillWaiting(found, trx))) return true;
        const to = transition(found.run.status, 'error', runFactsOf(found.run, found.stages, found.planHasChanges));
        if (!to) return true;
        if (!(await this.transitions.move(trx, found.run, to, {}, {}, { reason }))) return false;
        this.log.warn({ runId, phase: kind }, `${reason}; the run errored`);
        return true;
      });
      if (settled) return;
    }
    throw new Error(`the ${kind} timeout of run ${runId} kept losing to other changes; the job will retry`);
  }

  /** Run progress goes on from the new status (the post-plan or post-apply stage, confirmation, the end). */
  private async advanceLater(executor: Executor, run: RunInOrganization): Promise<void> {
    await this.jobs.enqueue(executor, runAdvanceJob(run.id, run.organizationName));
  }

  /** Why an upload was refused: the phase is not (or no longer) claimed and unreported. */
  private async notRunning(kind: PhaseKind, id: string): Promise<Error> {
    const phase = await this.runs.findPhase(TABLE[kind], id);
    const run = phase ? await this.runs.findRun(phase.run_id) : undefined;
    if (!phase || !run) return notFound(kind);
    if (phase.agent_report !== null) return Errors.phaseEndedWithoutReport(kind, `reported ${describeReport(phase.agent_report)}`, run.status);
    if (phase.status === 'pending' || phase.status === 'queued') return Errors.phaseNotRunning(kind, phase.status);
    return Errors.phaseEndedWithoutReport(kind, phase.status, run.status);
  }

  private async current(kind: PhaseKind, id: string): Promise<PhaseRow> {
    const phase = await this.runs.findPhase(TABLE[kind], id);
    if (!phase) throw notFound(kind);
    return phase;
  }
}

function describeReport(stored: string): string {
  try {
    const report = JSON.parse(stored) as { status?: string };
    return String(report.status ?? 'already');
  } catch {
    return 'already';
  }
}


function problemError(problem: PlanJsonProblem) {
  switch (problem.kind) {
    case 'too-deep':
      return Errors.planJsonTooDeep(problem.limit);
    case 'too-many-values':
      return Errors.planJsonTooManyValues(problem.limit);
    default:
      return Errors.invalidPlanJson(problem.detail);
  }
}

function summaryColumns(summary: PlanSummary) {
  return {
    has_changes: summary.hasChanges ? 1 : 0,
    resource_additions: summary.resourceAdditions,
    resource_changes: summary.resourceChanges,
    resource_destructions: summary.resourceDestructions,
    resource_imports: summary.resourceImports,
  } as const;
}
