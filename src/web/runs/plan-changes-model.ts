/**
 * The plan's changes by resource address and action, from terraform's plan JSON (`resource_changes[]`,
 * as `GET /plans/:id/json-output` serves it): what a reviewer reads before overriding. No-op and read-only
 * entries are left out; a delete-and-create is a replace. Pure, so test/unit loads it directly.
 */
export type ChangeAction = 'create' | 'update' | 'delete' | 'replace' | 'forget';

export interface PlannedChange {
  address: string;
  action: ChangeAction;
}

const ORDER: Record<ChangeAction, number> = { delete: 0, replace: 1, update: 2, create: 3, forget: 4 };

export function plannedChanges(planJson: unknown): PlannedChange[] {
  const entries = (planJson as { resource_changes?: unknown } | null)?.resource_changes;
  if (!Array.isArray(entries)) return [];
  const changes: PlannedChange[] = [];
  for (const entry of entries) {
    const address = (entry as { address?: unknown }).address;
    const actions = (entry as { change?: { actions?: unknown } }).change?.actions;
    if (typeof address !== 'string' || !Array.isArray(actions)) continue;
    const action = actionOf(actions.map(String));
    if (action) changes.push({ address, action });
  }
  // The destructive ones first: they are what a reviewer must not miss.
  return changes.sort((a, b) => ORDER[a.action] - ORDER[b.action] || a.address.localeCompare(b.address));
}

function actionOf(actions: string[]): ChangeAction | null {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.includes('create')) return 'create';
  if (actions.includes('delete')) return 'delete';
  if (actions.includes('update')) return 'update';
  if (actions.includes('forget')) return 'forget';
  return null; // no-op, read
}
