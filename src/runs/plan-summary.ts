/**
 * What HCP Terraform shows of a plan, derived from `terraform show -json` output: pure, so a unit test
 * checks it against real plans (test/fixtures/terraform-plans).
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The summary of a parsed plan JSON document; entries it cannot read count as nothing. */
export function summarizePlan(plan: unknown): PlanSummary {
  const summary = { ...EMPTY_PLAN_SUMMARY };
  let moved = false;
  const changes = isObject(plan) && Array.isArray(plan.resource_changes) ? plan.resource_changes : [];
  for (const entry of changes) {
    if (!isObject(entry) || !isObject(entry.change)) continue;
    const actions = Array.isArray(entry.change.actions) ? entry.change.actions.filter((action): action is string => typeof action === 'string') : [];
    const creates = actions.includes('create');
    const deletes = actions.includes('delete');
    if (creates) summary.resourceAdditions += 1;
    if (deletes) summary.resourceDestructions += 1;
    if (!creates && !deletes && actions.includes('update')) summary.resourceChanges += 1;
    if (entry.change.importing !== undefined && entry.change.importing !== null) summary.resourceImports += 1;
    if (typeof entry.previous_address === 'string' && entry.previous_address !== entry.address) moved = true;
  }
  summary.hasChanges = moved || summary.resourceAdditions + summary.resourceChanges + summary.resourceDestructions + summary.resourceImports > 0;
  return summary;
}

/** Why an upload is not a plan JSON document, or the document's text and summary. */
export type PlanJsonCheck = { ok: true; text: string; summary: PlanSummary } | { ok: false; problem: string };

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Checks an uploaded body: UTF-8 (so the text stored is the bytes sent), JSON, an object with a string
 * `format_version` (what every `terraform show -json` plan has). The size limit is checked while reading.
 */
export function checkPlanJson(body: Buffer): PlanJsonCheck {
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    return { ok: false, problem: 'the plan JSON is not valid UTF-8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the plan JSON is not valid JSON (upload the output of `terraform show -json <planfile>`)' };
  }
  if (!isObject(parsed)) return { ok: false, problem: 'the plan JSON must be a JSON object' };
  if (typeof parsed.format_version !== 'string') {
    return { ok: false, problem: 'the plan JSON has no string format_version: is it the output of `terraform show -json <planfile>`?' };
  }
  return { ok: true, text, summary: summarizePlan(parsed) };
}
