import { Errors } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { WorkspaceGate } from '../access/workspace-gate.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import type { ArtifactAccess } from '../access/artifact-access.js';
import type { PhaseRow, PhaseTable, RunsRepository } from './runs.repository.js';

/** Plans and applies of runs, and the plan JSON run tasks download. */
export class PhasesService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly workspaceGate: WorkspaceGate,
    private readonly artifactAccess: ArtifactAccess,
  ) {}

  async showPlan(principal: Principal, id: string): Promise<PhaseRow> {
    return this.visiblePhase(principal, 'plans', id, 'plan');
  }

  async showApply(principal: Principal, id: string): Promise<PhaseRow> {
    return this.visiblePhase(principal, 'applies', id, 'apply');
  }

  /** For a reader's API token, or the access token a run task got for a result of this plan's run. */
  async planJson(token: string | undefined, planId: string): Promise<string> {
    const plan = await this.runs.findPhase('plans', planId);
    const organizationName = plan ? await this.organizationOfRun(plan.run_id) : undefined;
    const target = plan && organizationName ? { organizationName, runIds: async () => [plan.run_id] } : undefined;
    await this.artifactAccess.authorize(token, target, 'plan');
    const stored = await this.runs.planJsonOf(plan!.id);
    if (!stored?.json) throw Errors.planHasNoJson();
    return stored.json;
  }

  private async visiblePhase(principal: Principal, table: PhaseTable, id: string, what: 'plan' | 'apply'): Promise<PhaseRow> {
    const phase = await this.runs.findPhase(table, id);
    const run = phase ? await this.runs.findRun(phase.run_id) : undefined;
    const workspace = run ? await this.workspaces.findById(run.workspace_id) : undefined;
    if (!phase || !workspace) throw what === 'plan' ? Errors.planNotFound() : Errors.applyNotFound();
    await this.workspaceGate.enterOrganizationOf(principal, workspace, what);
    return phase;
  }

  private async organizationOfRun(runId: string): Promise<string | undefined> {
    const run = await this.runs.findRun(runId);
    return run ? (await this.workspaces.findById(run.workspace_id))?.organization_name : undefined;
  }
}
