import { Errors } from '../core/errors.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import type { ArtifactAccess } from '../access/artifact-access.js';
import type { PhaseUploadsRepository, StoredUpload } from './phase-uploads.repository.js';
import type { RunsRepository } from './runs.repository.js';
import { redactedPlan } from './redacted-plan.js';

/** The plan JSON run tasks download (read piece by piece as it is sent). */
export class PhasesService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly uploads: PhaseUploadsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly artifactAccess: ArtifactAccess,
  ) {}

  /** For a reader's API token, or the access token a run task got for a result of this plan's run. */
  async planJson(token: string | undefined, planId: string): Promise<StoredUpload> {
    const plan = await this.runs.findPhase('plans', planId);
    const place = plan ? await this.placeOfRun(plan.run_id) : undefined;
    const target = plan && place ? { ...place, runIds: async () => [plan.run_id] } : undefined;
    await this.artifactAccess.authorize(token, target, 'plan');
    if (!plan!.json_upload_id) throw Errors.planHasNoJson();
    return { size: plan!.json_bytes ?? 0, pieces: this.uploads.read(plan!.json_upload_id) };
  }

  /** HCP's redacted plan (redacted-plan.ts) of a plan the caller may read: what the `cloud` block renders. */
  async redactedPlanJson(plan: { json_upload_id: string | null }): Promise<string> {
    if (!plan.json_upload_id) throw Errors.planHasNoJson();
    return redactedPlan(this.uploads.read(plan.json_upload_id));
  }

  private async placeOfRun(runId: string): Promise<{ organizationName: string; workspaceId: string } | undefined> {
    const run = await this.runs.findRun(runId);
    const workspace = run ? await this.workspaces.findById(run.workspace_id) : undefined;
    return workspace ? { organizationName: workspace.organization_name, workspaceId: workspace.id } : undefined;
  }
}
