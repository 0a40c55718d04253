/**
 * What changes inside a resource (or an output) of terraform's plan JSON, as a reviewer reads it: one row per
 * attribute path with its value before and after. Values terraform marks sensitive (`before_sensitive`,
 * `after_sensitive`) are never shown, as terraform masks them; values marked in `after_unknown` read "known
 * after apply"; the paths in `replace_paths` are flagged as forcing the replacement. Objects are opened to
 * their leaves (a.b.c), lists of plain values are shown whole. Pure and import-free (test/unit loads it).
 */
export type Shown = { kind: 'value'; text: string } | { kind: 'sensitive' } | { kind: 'unknown' } | { kind: 'absent' };

export interface AttributeRow {
  path: string;
  before: Shown;
  after: Shown;
  /** This attribute forces the resource to be replaced (`replace_paths`). */
  forcesReplacement: boolean;
  /** The values differ (compared before masking, so a sensitive attribute that changes is listed, masked). */
  changed: boolean;
}

/** The parts of terraform's `change` object the structured view reads (plan-changes-model.ts keeps it per change). */
export interface ChangeBody {
  actions?: unknown;
  before?: unknown;
  after?: unknown;
  after_unknown?: unknown;
  before_sensitive?: unknown;
  after_sensitive?: unknown;
  replace_paths?: unknown;
}

/** Deepest level opened: a deeper object is shown as JSON (bounded). */
const MAX_DEPTH = 6;
const MAX_TEXT = 400;

export function attributeRows(change: ChangeBody): AttributeRow[] {
  const rows: AttributeRow[] = [];
  const replacePaths = Array.isArray(change.replace_paths) ? (change.replace_paths as unknown[][]).filter(Array.isArray).map((path) => path.map(String).join('.')) : [];
  walk([], change.before, change.after, change.after_unknown, change.before_sensitive, change.after_sensitive, rows);
  for (const row of rows) row.forcesReplacement = replacePaths.some((path) => row.path === path || row.path.startsWith(`${path}.`));
  // A plain create or destroy lists every attribute; an update or replace only what differs (and what is unknown).
  const actions = Array.isArray(change.actions) ? change.actions.map(String) : [];
  const everything = actions.length === 1 && (actions[0] === 'create' || actions[0] === 'delete');
  return everything ? rows.filter((row) => row.before.kind !== 'absent' || row.after.kind !== 'absent') : rows.filter(differs);
}

/** A whole value (an output) as one row, path empty. */
export function valueRow(change: ChangeBody): AttributeRow {
  return {
    path: '',
    before: shown(change.before, false, containsTrue(change.before_sensitive)),
    after: shown(change.after, change.after_unknown === true, containsTrue(change.after_sensitive)),
    forcesReplacement: false,
    changed: change.after_unknown === true || JSON.stringify(change.before ?? null) !== JSON.stringify(change.after ?? null),
  };
}

function walk(path: string[], before: unknown, after: unknown, unknown: unknown, beforeSensitive: unknown, afterSensitive: unknown, rows: AttributeRow[]): void {
  const open = path.length < MAX_DEPTH && beforeSensitive !== true && afterSensitive !== true && unknown !== true;
  // A list of plain values is shown whole, unless part of it is sensitive or unknown: then it is opened too.
  const marked = containsTrue(beforeSensitive) || containsTrue(afterSensitive) || containsTrue(unknown);
  const whole = (isArrayOfPlain(before) || isArrayOfPlain(after)) && !marked;
  if (open && (isObject(before) || isObject(after) || isObject(unknown)) && !whole) {
    const keys = new Set([...keysOf(before), ...keysOf(after), ...keysOf(unknown)]);
    for (const key of [...keys].sort(byNumberOrName)) {
      walk([...path, key], childOf(before, key), childOf(after, key), childOf(unknown, key), childOf(beforeSensitive, key), childOf(afterSensitive, key), rows);
    }
    return;
  }
  // Past the deepest level, a value with anything sensitive inside is masked whole: nothing sensitive is shown.
  rows.push({
    path: path.join('.'),
    before: shown(before, false, containsTrue(beforeSensitive)),
    after: shown(after, unknown === true, containsTrue(afterSensitive)),
    forcesReplacement: false,
    changed: unknown === true || JSON.stringify(before ?? null) !== JSON.stringify(after ?? null),
  });
}

function shown(value: unknown, unknown: boolean, sensitive: boolean): Shown {
  if (sensitive) return { kind: 'sensitive' };
  if (unknown) return { kind: 'unknown' };
  if (value === undefined || value === null) return { kind: 'absent' };
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return { kind: 'value', text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text };
}

function differs(row: AttributeRow): boolean {
  return row.changed;
}

/** `true` anywhere in a sensitivity or unknown-ness tree. */
function containsTrue(marks: unknown): boolean {
  if (marks === true) return true;
  return isObject(marks) && Object.values(marks).some(containsTrue);
}

function isObject(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

function isArrayOfPlain(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null);
}

function keysOf(value: unknown): string[] {
  return isObject(value) ? Object.keys(value) : [];
}

function childOf(value: unknown, key: string): unknown {
  return isObject(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function byNumberOrName(a: string, b: string): number {
  const numbers = /^\d+$/.test(a) && /^\d+$/.test(b);
  return numbers ? Number(a) - Number(b) : a.localeCompare(b);
}
