import { Errors } from '../core/errors.js';
import { ENFORCEMENT_LEVELS, SENTINEL_ENFORCEMENT_LEVELS, type PolicyLevel } from '../shared/enforcement-levels.js';
import { DEFAULT_POLICY_KIND, isPolicyKind, type PolicyKind } from '../shared/policy-kinds.js';

export { DEFAULT_POLICY_KIND, type PolicyKind };

/** A policy's attributes as go-tfe and the tfe provider send them (`enforce` is the older form of `enforcement-level`). */
export interface PolicyInput {
  name?: string;
  description?: string | null;
  kind?: string;
  query?: string;
  'enforcement-level'?: string;
  enforce?: Array<{ path?: string | null; mode?: string | null }>;
}

/** Each kind's enforcement levels, as HCP names them (Sentinel's soft-mandatory may be overridden, hard may not). */
export const LEVELS_OF_KIND: Record<PolicyKind, readonly PolicyLevel[]> = {
  opa: ENFORCEMENT_LEVELS,
  sentinel: SENTINEL_ENFORCEMENT_LEVELS,
};

/** The kind an input names (missing: HCP's default), or a 422 for one HCP does not have. */
export function policyKindOf(kind: string | undefined): PolicyKind {
  const value = kind ?? DEFAULT_POLICY_KIND;
  if (!isPolicyKind(value)) throw Errors.unknownPolicyKind(value);
  return value;
}

/**
 * The enforcement level an input asks for: `enforcement-level`, or the `mode` of `enforce[0]` (both at once
 * is refused, as go-tfe refuses it). OPA policies are `advisory` or `mandatory`, Sentinel ones `advisory`,
 * `soft-mandatory` or `hard-mandatory` (HCP's rule). `required`: a new policy must say which.
 */
export function enforcementLevelOf(input: PolicyInput, required: boolean, kind: PolicyKind = 'opa'): PolicyLevel | undefined {
  const direct = input['enforcement-level'];
  const viaEnforce = input.enforce?.[0]?.mode ?? undefined;
  if (direct !== undefined && input.enforce !== undefined) {
    throw Errors.policyEnforcementGivenTwice();
  }
  const level = direct ?? viaEnforce;
  if (level === undefined || level === null) {
    if (required) throw Errors.policyEnforcementLevelRequired(LEVELS_OF_KIND[kind]);
    return undefined;
  }
  if (!isLevelOf(kind, level)) {
    const pointer = direct !== undefined ? '/data/attributes/enforcement-level' : '/data/attributes/enforce/0/mode';
    throw Errors.invalidPolicyEnforcementLevel(pointer, kind, LEVELS_OF_KIND[kind], level);
  }
  return level;
}

/** Whether `level` is one of `kind`'s levels (an OPA policy is never soft-mandatory). */
export function isLevelOf(kind: PolicyKind, level: string): level is PolicyLevel {
  return (LEVELS_OF_KIND[kind] as readonly string[]).includes(level);
}

/** HCP's rule for policy and policy set names: letters, digits, `-` and `_`, at most 100 characters. */
export function policyNameProblem(name: string): string | undefined {
  if (name === '') return 'the name is required';
  if (name.length > 100) return 'the name is longer than 100 characters';
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return 'the name may hold only letters, digits, - and _';
  return undefined;
}
