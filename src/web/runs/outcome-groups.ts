/**
 * A task's outcomes grouped by severity, worst first, as a reviewer reads them: the `Severity` tag's label
 * names the group, its level (error, warning, info) orders it; outcomes without one come last. Pure, so
 * test/unit loads it directly (hence no imports: the server's tsconfig checks it through the unit test).
 */
interface OutcomeTag {
  label: unknown;
  level?: unknown;
}
export interface OutcomeGroup<O> {
  label: string;
  level: string | null;
  outcomes: O[];
}

const LEVEL_ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

export function severityOf(tags: unknown): { label: string; level: string | null } | null {
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return null;
  for (const [name, values] of Object.entries(tags as Record<string, unknown>)) {
    if (!/^severity$/i.test(name) || !Array.isArray(values) || values.length === 0) continue;
    const first = values[0] as OutcomeTag;
    const level = typeof first.level === 'string' ? first.level : null;
    return { label: String(first.label), level };
  }
  return null;
}

export function groupBySeverity<O extends { attributes: { tags: unknown } }>(outcomes: O[]): OutcomeGroup<O>[] {
  const groups = new Map<string, OutcomeGroup<O>>();
  for (const outcome of outcomes) {
    const severity = severityOf(outcome.attributes.tags);
    const key = severity ? `${severity.level ?? ''}\u0000${severity.label}` : '\u0001none';
    const group = groups.get(key) ?? { label: severity ? `Severity: ${severity.label}` : 'No severity', level: severity?.level ?? null, outcomes: [] };
    group.outcomes.push(outcome);
    groups.set(key, group);
  }
  const rank = (group: OutcomeGroup<O>) => (group.label === 'No severity' ? 4 : (LEVEL_ORDER[group.level ?? ''] ?? 3));
  return [...groups.values()].sort((a, b) => rank(a) - rank(b) || b.outcomes.length - a.outcomes.length);
}
