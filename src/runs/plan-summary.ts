/**
 * What HCP Terraform shows of a plan, derived from `terraform show -json` output as it streams past
 * (plan-json-scanner.ts feeds each entry here): pure, so a unit test checks it against real plans
 * (test/fixtures/terraform-plans).
 *
 * The counting rule is Terraform's own (the "Plan: N to add, N to change, N to destroy" line and
 * HCP's resource-* attributes), per entry of `resource_changes`, from `change.actions`:
 *   ["create"] → one addition; ["update"] → one change; ["delete"] → one destruction;
 *   ["delete","create"] or ["create","delete"] (a replace) → one addition AND one destruction;
 *   ["no-op"], ["read"] → nothing. `change.importing` present → one import, whatever the actions.
 *
 * has-changes: any addition, change, destruction or import, or a resource that moved
 * (`previous_address`), as Terraform's own "is this plan empty" test counts moves. Output changes do not
 * count: plans of Terraform 0.12-0.14 (`format_version` 0.1) list every output as `create` on every plan,
 * changed or not (the `no_changes` fixture does), so counting them would call every such plan changed;
 * HCP's counts are about resources too.
 */
export interface PlanSummary {
  hasChanges: boolean;
  resourceAdditions: number;
  resourceChanges: number;
  resourceDestructions: number;
  resourceImports: number;
}

export const EMPTY_PLAN_SUMMARY: PlanSummary = { hasChanges: false, resourceAdditions: 0, resourceChanges: 0, resourceDestructions: 0, resourceImports: 0 };

/** What of a `resource_changes` entry counts: its `change.actions` (strings) and whether `change.importing` is set (not null). */
export interface ResourceChange {
  actions: readonly string[];
  importing: boolean;
}

/** Adds one entry of `resource_changes` (one whose `change` is an object) to the counts. */
export function addResourceChange(summary: PlanSummary, change: ResourceChange): void {
  const creates = change.actions.includes('create');
  const deletes = change.actions.includes('delete');
  if (creates) summary.resourceAdditions += 1;
  if (deletes) summary.resourceDestructions += 1;
  if (!creates && !deletes && change.actions.includes('update')) summary.resourceChanges += 1;
  if (change.importing) summary.resourceImports += 1;
}

/** The summary once every entry was added; `moved`: an entry's `previous_address` differs from its `address`. */
export function finishSummary(counts: PlanSummary, moved: boolean): PlanSummary {
  return { ...counts, hasChanges: moved || counts.resourceAdditions + counts.resourceChanges + counts.resourceDestructions + counts.resourceImports > 0 };
}
