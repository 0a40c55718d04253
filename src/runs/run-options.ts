/**
 * What a run was asked to do beyond plan-only, auto-apply and destroy: HCP Terraform's create attributes
 * that change what Terraform is told (`refresh`, `refresh-only`, `allow-empty-apply`, `replace-addrs`,
 * `target-addrs`, `variables`). Stored as sent and echoed on every run document, as HCP does; the built-in
 * executor runs no Terraform, an agent pipeline reads them from the run.
 */
export interface RunVariable {
  key: string;
  value: string;
}

export interface RunOptions {
  refresh: boolean;
  refreshOnly: boolean;
  allowEmptyApply: boolean;
  replaceAddrs: string[];
  targetAddrs: string[];
  variables: RunVariable[];
  /** HCP's saved plan: stored and echoed (the run's operation is `save_plan`). */
  savePlan: boolean;
  /** HCP: the Terraform version of a plan-only run; null: the workspace's. */
  terraformVersion: string | null;
}

/** The create attributes as they arrive (types are checked by the route's schema). */
export interface RunOptionAttributes {
  refresh?: boolean;
  'refresh-only'?: boolean;
  'allow-empty-apply'?: boolean;
  'replace-addrs'?: string[];
  'target-addrs'?: string[];
  variables?: RunVariable[];
  'save-plan'?: boolean;
  'terraform-version'?: string;
}

/** HCP's defaults: refresh on, everything else off or empty. */
export function runOptionsOf(attributes: RunOptionAttributes): RunOptions {
  return {
    refresh: attributes.refresh ?? true,
    refreshOnly: attributes['refresh-only'] ?? false,
    allowEmptyApply: attributes['allow-empty-apply'] ?? false,
    replaceAddrs: attributes['replace-addrs'] ?? [],
    targetAddrs: attributes['target-addrs'] ?? [],
    variables: (attributes.variables ?? []).map(({ key, value }) => ({ key, value })),
    savePlan: attributes['save-plan'] ?? false,
    terraformVersion: attributes['terraform-version'] ?? null,
  };
}

/** The stored column: only what differs from the defaults, so a run without options stores `{}`. */
export function storedRunOptions(options: RunOptions): string {
  const stored: RunOptionAttributes = {};
  if (!options.refresh) stored.refresh = false;
  if (options.refreshOnly) stored['refresh-only'] = true;
  if (options.allowEmptyApply) stored['allow-empty-apply'] = true;
  if (options.replaceAddrs.length > 0) stored['replace-addrs'] = options.replaceAddrs;
  if (options.targetAddrs.length > 0) stored['target-addrs'] = options.targetAddrs;
  if (options.variables.length > 0) stored.variables = options.variables;
  if (options.savePlan) stored['save-plan'] = true;
  if (options.terraformVersion !== null) stored['terraform-version'] = options.terraformVersion;
  return JSON.stringify(stored);
}

export function parseRunOptions(stored: string): RunOptions {
  return runOptionsOf(JSON.parse(stored) as RunOptionAttributes);
}

/** HCP's run operations (`filter[operation]`), one per run: what it was asked to do. */
export const RUN_OPERATIONS = ['plan_only', 'plan_and_apply', 'save_plan', 'refresh_only', 'destroy', 'empty_apply'] as const;
export type RunOperation = (typeof RUN_OPERATIONS)[number];

/** A run's operation: plan-only first, then saved plan, refresh-only, destroy, empty apply; else plan and apply. */
export function runOperationOf(run: { planOnly: boolean; isDestroy: boolean; options: RunOptions }): RunOperation {
  if (run.planOnly) return 'plan_only';
  if (run.options.savePlan) return 'save_plan';
  if (run.options.refreshOnly) return 'refresh_only';
  if (run.isDestroy) return 'destroy';
  if (run.options.allowEmptyApply) return 'empty_apply';
  return 'plan_and_apply';
}
