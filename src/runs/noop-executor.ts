import type { ExecutionContext, PhaseOutcome, PlanOutcome, RunExecutor } from './executor.js';

/** The Terraform version the no-op executor claims in its plan JSON and the workspaces show. */
export const NOOP_TERRAFORM_VERSION = '1.9.8';

/** A valid, empty JSON plan: no resources, no changes (the shape `terraform show -json` prints). */
export function emptyPlanJson(terraformVersion = NOOP_TERRAFORM_VERSION): string {
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: terraformVersion,
    planned_values: { root_module: {} },
    resource_changes: [],
    configuration: { root_module: {} },
  });
}

/**
 * The built-in executor. SIMULATED: it runs no Terraform at all. Teamstage's job is run task gating
 * (stages, results, override), not infrastructure; a real executor (Terraform in a sandbox, an agent
 * pool) plugs in behind RunExecutor. This one finishes each phase at once with no changes and an
 * empty plan JSON, so the whole run lifecycle, every task stage and the run task protocol can be
 * exercised without cloud credentials.
 *
 * Unlike HCP Terraform, where a plan without changes ends the run (`planned_and_finished`), a
 * non-plan-only run here still stops in `planned` / `post_plan_completed` to wait for apply (or
 * applies at once with auto-apply), so the pre-apply and post-apply stages are reachable.
 */
export class NoopExecutor implements RunExecutor {
  readonly name = 'noop';

  async plan(_context: ExecutionContext): Promise<PlanOutcome> {
    return { status: 'finished', hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, jsonOutput: emptyPlanJson() };
  }

  async apply(_context: ExecutionContext): Promise<PhaseOutcome> {
    return { status: 'finished', hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0 };
  }
}
