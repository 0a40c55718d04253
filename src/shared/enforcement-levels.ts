/**
 * Enforcement levels (HCP Terraform's names), shared by run tasks, task results, OPA policies, the console and
 * the pipeline client: the one place that spells them. A failure of an `advisory` member only warns; one of a
 * `mandatory` member holds its stage. Sentinel policies have their own three levels. Dependency-free.
 */
export const ENFORCEMENT_LEVELS = ['advisory', 'mandatory'] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

/** A Sentinel policy's levels: soft-mandatory may be overridden, hard-mandatory may not. */
export const SENTINEL_ENFORCEMENT_LEVELS = ['advisory', 'soft-mandatory', 'hard-mandatory'] as const;

/** Any policy's level (OPA's or Sentinel's). */
export type PolicyLevel = EnforcementLevel | (typeof SENTINEL_ENFORCEMENT_LEVELS)[number];

export function isEnforcementLevel(value: string): value is EnforcementLevel {
  return (ENFORCEMENT_LEVELS as readonly string[]).includes(value);
}
