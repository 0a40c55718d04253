/**
 * The plan's changes by resource address and action, from terraform's plan JSON (`resource_changes[]`,
 * as `GET /plans/:id/json-output` serves it): what a reviewer reads before overriding. No-op and read-only
 * entries are left out; a delete-and-create is a replace. Pure, so test/unit loads it directly.
 */
import type { ChangeBody } from './plan-attributes-model.js';

export type { ChangeBody };
export type ChangeAction = 'create' | 'update' | 'delete' | 'replace' | 'forget';

export interface PlannedChange {
  address: string;
  action: ChangeAction;
  /** terraform's `change` object (before, after, after_unknown, the sensitivity trees, replace_paths). */
  change?: ChangeBody;
  /** Why terraform chose the action (`replace_because_tainted`, …), when it says. */
  reason?: string;
}


const ORDER: Record<ChangeAction, number> = { delete: 0, replace: 1, update: 2, create: 3, forget: 4 };
/** The order of `localeCompare`, made once: a plan of thousands of changes is sorted on the run page's first paint. */
const BY_NAME = new Intl.Collator();

export function plannedChanges(planJson: unknown, list: 'resource_changes' | 'resource_drift' = 'resource_changes'): PlannedChange[] {
  const entries = (planJson as Record<string, unknown> | null)?.[list];
  if (!Array.isArray(entries)) return [];
  const changes: PlannedChange[] = [];
  for (const entry of entries) {
    const address = (entry as { address?: unknown }).address;
    const change = (entry as { change?: ChangeBody }).change;
    const actions = change?.actions;
    if (typeof address !== 'string' || !Array.isArray(actions)) continue;
    const action = actionOf(actions.map(String));
    const reason = (entry as { action_reason?: unknown }).action_reason;
    if (action) changes.push({ address, action, change, ...(typeof reason === 'string' ? { reason } : {}) });
  }
  // The destructive ones first: they are what a reviewer must not miss.
  return changes.sort((a, b) => ORDER[a.action] - ORDER[b.action] || BY_NAME.compare(a.address, b.address));
}

/** The plan's output changes by name (`output_changes`), no-ops left out, in name order. */
export function plannedOutputs(planJson: unknown): { name: string; action: ChangeAction; change: ChangeBody }[] {
  const outputs = (planJson as { output_changes?: unknown } | null)?.output_changes;
  if (!outputs || typeof outputs !== 'object' || Array.isArray(outputs)) return [];
  const changed: { name: string; action: ChangeAction; change: ChangeBody }[] = [];
  for (const [name, change] of Object.entries(outputs as Record<string, ChangeBody>)) {
    const action = Array.isArray(change?.actions) ? actionOf(change.actions.map(String)) : null;
    if (action) changed.push({ name, action, change });
  }
  return changed.sort((a, b) => BY_NAME.compare(a.name, b.name));
}

function actionOf(actions: string[]): ChangeAction | null {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.includes('create')) return 'create';
  if (actions.includes('delete')) return 'delete';
  if (actions.includes('update')) return 'update';
  if (actions.includes('forget')) return 'forget';
  return null; // no-op, read
}
