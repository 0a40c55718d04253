import { Errors } from '../core/errors.js';
import type { PolicyLevel } from './policy-outcomes.js';

/** A policy's attributes as go-tfe and the tfe provider send them (`enforce` is the older form of `enforcement-level`). */
export interface PolicyInput {
  name?: string;
  description?: string | null;
  kind?: string;
  query?: string;
  'enforcement-level'?: string;
  enforce?: Array<{ path?: string | null; mode?: string | null }>;
}

const LEVELS: readonly PolicyLevel[] = ['advisory', 'mandatory'];

/**
 * The enforcement level an input asks for: `enforcement-level`, or the `mode` of `enforce[0]` (both at once
 * is refused, as go-tfe refuses it). OPA policies are `advisory` or `mandatory` (HCP's rule; Sentinel's soft-
 * and hard-mandatory are not OPA's). `required`: a new policy must say which.
 */
export function enforcementLevelOf(input: PolicyInput, required: boolean): PolicyLevel | undefined {
  const direct = input['enforcement-level'];
  const viaEnforce = input.enforce?.[0]?.mode ?? undefined;
  if (direct !== undefined && input.enforce !== undefined) {
    throw Errors.invalidPolicyAttribute('/data/attributes/enforce', 'give enforcement-level or enforce, not both');
  }
  const level = direct ?? viaEnforce;
  if (level === undefined || level === null) {
    if (required) throw Errors.invalidPolicyAttribute('/data/attributes/enforcement-level', 'the enforcement level is required: advisory or mandatory');
    return undefined;
  }
  if (!(LEVELS as readonly string[]).includes(level)) {
    const pointer = direct !== undefined ? '/data/attributes/enforcement-level' : '/data/attributes/enforce/0/mode';
    throw Errors.invalidPolicyAttribute(pointer, `an OPA policy's enforcement level is advisory or mandatory, not ${JSON.stringify(level)}`);
  }
  return level as PolicyLevel;
}

/** HCP's rule for policy and policy set names: letters, digits, `-` and `_`, at most 100 characters. */
export function policyNameProblem(name: string): string | undefined {
  if (name === '') return 'the name is required';
  if (name.length > 100) return 'the name is longer than 100 characters';
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return 'the name may hold only letters, digits, - and _';
  return undefined;
}
