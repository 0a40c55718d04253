/**
 * The policy kinds HCP serves, shared by policies, policy sets, their database columns and the console: the one
 * place that spells them. A policy or set created without a kind is `sentinel`, as HCP's API defaults it.
 * Dependency-free.
 */
export const POLICY_KINDS = ['opa', 'sentinel'] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

export const DEFAULT_POLICY_KIND: PolicyKind = 'sentinel';

export function isPolicyKind(value: string): value is PolicyKind {
  return (POLICY_KINDS as readonly string[]).includes(value);
}
