import { requireAccess } from '../access/require-access.js';
import type { OrganizationContext } from '../access/organization-gate.js';
import type { WorkspaceGate } from '../access/workspace-gate.js';
import { Errors } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import type { PhaseRow, PhaseTable, RunRow, RunsRepository } from './runs.repository.js';

export type PhaseKind = 'plan' | 'apply';

export const PHASE_TABLE: Record<PhaseKind, PhaseTable> = { plan: 'plans', apply: 'applies' };

/** A plan or apply the caller may read, with its run and the caller's context in the run's organization. */
export interface VisiblePhase {
  kind: PhaseKind;
  phase: PhaseRow;
  run: RunRow;
  context: OrganizationContext;
}

const DRIVABLE = Symbol('drivable phase');

/** Proof that `drivable` accepted the caller as the pipeline of this phase (only it can make one). */
export interface DrivablePhase extends VisiblePhase {
  [DRIVABLE]: true;
}

export function phaseNotFound(kind: PhaseKind) {
  return kind === 'plan' ? Errors.planNotFound() : Errors.applyNotFound();
}

/** The lookups of plans and applies: for their readers, and for the pipeline that drives them (agent mode). */
export class PhaseLookup {
  constructor(
    private readonly runs: RunsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly workspaceGate: WorkspaceGate,
  ) {}

  /** The `plan` and `apply` lookups: 404 when missing or when the caller may not read the run. */
  async visible(principal: Principal, kind: PhaseKind, id: string): Promise<VisiblePhase> {
    const phase = await this.runs.findPhase(PHASE_TABLE[kind], id);
    const run = phase ? await this.runs.findRun(phase.run_id) : undefined;
    const workspace = run ? await this.workspaces.findById(run.workspace_id) : undefined;
    if (!phase || !run || !workspace) throw phaseNotFound(kind);
    const context = await this.workspaceGate.enterOrganizationOf(principal, workspace, kind);
    return { kind, phase, run, context };
  }

  /**
   * The `plan-execution` and `apply-execution` lookups (claim, uploads, report): 404 for a caller who may
   * not queue runs in the workspace, as for a missing phase; then 409 for a run not in agent mode.
   */
  async drivable(principal: Principal, kind: PhaseKind, id: string): Promise<DrivablePhase> {
    const found = await this.visible(principal, kind, id);
    requireAccess(found.context.standing, kind, 'execute', {});
    if (executionModeOf(found.run.execution_mode) !== 'agent') throw Errors.notAgentMode(kind);
    return { ...found, [DRIVABLE]: true };
  }
}
