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

/** The one resource a simulated plan with changes creates: a `terraform_data` (built into Terraform, no provider to install). */
const SIMULATED_ADDRESS = 'terraform_data.teamstage_simulated';
const SIMULATED_PROVIDER = 'terraform.io/builtin/terraform';

/**
 * A valid JSON plan that creates one `terraform_data` resource and nothing else: what the no-op executor
 * serves when it simulates changes, so the plan JSON says what its has-changes and counts say.
 */
export function simulatedChangePlanJson(terraformVersion = NOOP_TERRAFORM_VERSION): string {
  const after = { input: null, triggers_replace: null };
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: terraformVersion,
    planned_values: {
      root_module: {
        resources: [
          { address: SIMULATED_ADDRESS, mode: 'managed', type: 'terraform_data', name: 'teamstage_simulated', provider_name: SIMULATED_PROVIDER, schema_version: 0, values: after, sensitive_values: {} },
        ],
      },
    },
    resource_changes: [
      {
        address: SIMULATED_ADDRESS,
        mode: 'managed',
        type: 'terraform_data',
        name: 'teamstage_simulated',
        provider_name: SIMULATED_PROVIDER,
        change: { actions: ['create'], before: null, after, after_unknown: { id: true, output: true }, before_sensitive: false, after_sensitive: {} },
      },
    ],
    configuration: {
      root_module: {
        resources: [{ address: SIMULATED_ADDRESS, mode: 'managed', type: 'terraform_data', name: 'teamstage_simulated', provider_config_key: 'terraform', schema_version: 0 }],
      },
    },
  });
}

export interface NoopExecutorOptions {
  /**
   * TEAMSTAGE_SIMULATED_PLAN_CHANGES: every plan "creates" one `terraform_data` resource, so a run that is
   * not plan-only waits for its apply and reaches the pre-apply and post-apply stages. Default false: no
   * changes, and the run ends `planned_and_finished` after its post-plan stage, as HCP's do.
   */
  simulatedChanges?: boolean;
}

/**
 * The built-in executor. SIMULATED: it runs no Terraform at all. Teamstage's job is run task gating
 * (stages, results, override), not infrastructure; a real executor (Terraform in a sandbox, an agent
 * pool) plugs in behind RunExecutor. This one finishes each phase at once, so the whole run lifecycle,
 * every task stage and the run task protocol can be exercised without cloud credentials.
 *
 * By default its plans have no changes (an empty plan JSON), so a run ends `planned_and_finished` after
 * its post-plan stage and frees its workspace, as on HCP Terraform (tofu's and terraform's `cloud` block
 * confirm nothing when `has-changes` is false). With `simulatedChanges` each plan reports one resource to
 * create (has-changes, counts and plan JSON agree) and each apply one resource added, so runs wait for
 * their apply and the pre-apply and post-apply stages are reachable.
 */
export class NoopExecutor implements RunExecutor {
  readonly name = 'noop';
  private readonly simulatedChanges: boolean;

  constructor(options: NoopExecutorOptions = {}) {
    this.simulatedChanges = options.simulatedChanges === true;
  }

  async plan(_context: ExecutionContext): Promise<PlanOutcome> {
    if (this.simulatedChanges) {
      return { status: 'finished', hasChanges: true, resourceAdditions: 1, resourceChanges: 0, resourceDestructions: 0, jsonOutput: simulatedChangePlanJson() };
    }
    return { status: 'finished', hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, jsonOutput: emptyPlanJson() };
  }

  async apply(_context: ExecutionContext): Promise<PhaseOutcome> {
    const added = this.simulatedChanges ? 1 : 0;
    return { status: 'finished', hasChanges: this.simulatedChanges, resourceAdditions: added, resourceChanges: 0, resourceDestructions: 0 };
  }
}
