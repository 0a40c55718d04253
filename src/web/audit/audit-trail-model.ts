/**
 * HCP Terraform's audit trail as `GET /api/v2/organization/audit-trail` answers it (not JSON:API: `data`
 * and a top-level `pagination`), and the words a person reads for each entry. Pure, unit-tested.
 */

export interface AuditTrailEntry {
  id: string;
  timestamp: string;
  auth: { accessor_id: string | null; description: string; organization_id: string };
  request: { id: string | null };
  resource: { id: string; type: string; action: string; meta: Record<string, unknown> | null };
}

export interface AuditTrailPage {
  data: AuditTrailEntry[];
  pagination: { current_page: number; prev_page: number | null; next_page: number | null; total_pages: number; total_count: number };
}

/**
 * One detail of an entry: an attribute and its value, with the value before where the entry records a change
 * (`organization-access.manage-teams`: false → true).
 */
export interface AuditDetail {
  attribute: string;
  before?: string;
  after: string;
}

/** `organization_membership` → "organization membership". */
export function resourceKind(type: string): string {
  return type.replace(/[_-]+/g, ' ');
}

/** What was done, as a verb: `create` → "created", `destroy` → "deleted"; an unknown action is shown as it is. */
export function actionWords(action: string): string {
  const known: Record<string, string> = { create: 'created', update: 'updated', destroy: 'deleted', delete: 'deleted' };
  return known[action] ?? action.replace(/[_-]+/g, ' ');
}

/** The resource's name where the entry gives one (`meta.name`, else the name after the change), else its id. */
export function resourceName(entry: AuditTrailEntry): string {
  const meta = entry.resource.meta ?? {};
  const after = isRecord(meta.after) ? meta.after : {};
  const before = isRecord(meta.before) ? meta.before : {};
  const name = meta.name ?? after.name ?? before.name;
  return typeof name === 'string' && name !== '' ? name : entry.resource.id;
}

/**
 * What an entry records beyond who and what, one line per attribute, nested objects (a team's organization
 * access) flattened to `parent.key`, in the order of the attribute names:
 *  - a change (`meta.before` and `meta.after`): each attribute that differs, before and after;
 *  - a creation (`meta.after` alone): what it was made with, leaving out its name (said already) and what is
 *    off or empty;
 *  - a deletion (`meta.before` alone): nothing, its name says what went;
 *  - anything else: the meta's own details (the users added to a team), but its name.
 */
export function detailsOf(entry: AuditTrailEntry): AuditDetail[] {
  const meta = entry.resource.meta ?? {};
  const hasBefore = isRecord(meta.before);
  const hasAfter = isRecord(meta.after);
  const before = flatten(hasBefore ? (meta.before as Record<string, unknown>) : {});
  const after = flatten(hasAfter ? (meta.after as Record<string, unknown>) : {});
  if (hasBefore && hasAfter) {
    return [...new Set([...before.keys(), ...after.keys()])]
      .sort()
      .map((attribute) => ({ attribute, before: shown(before.get(attribute)), after: shown(after.get(attribute)) }))
      .filter((change) => change.before !== change.after);
  }
  if (hasBefore) return [];
  const values = hasAfter ? after : flatten(Object.fromEntries(Object.entries(meta).filter(([key]) => key !== 'name' && key !== 'before' && key !== 'after')));
  return [...values.entries()]
    .filter(([attribute, value]) => !(hasAfter && attribute === 'name') && !isOffOrEmpty(value))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([attribute, value]) => ({ attribute, after: shown(value) }));
}

function isOffOrEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A value as text: strings as they are, nothing as "—", anything else as JSON. */
function shown(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (Array.isArray(value)) return value.map(shown).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function flatten(record: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isRecord(value)) for (const [inner, innerValue] of flatten(value, path)) flat.set(inner, innerValue);
    else flat.set(path, value);
  }
  return flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `since` the API takes from a `datetime-local` control's value (the person's local time, no zone):
 * ISO 8601 in UTC, or undefined for an empty or unreadable value.
 */
export function sinceFromLocalInput(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
