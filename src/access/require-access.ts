import type { AnyPrincipal } from '../core/principal.js';
import { ACCESS_TABLE, HIDDEN_AS, PERSONAL_HIDDEN_AS, PERSONAL_TABLE, type ActionOn, type PersonalAction, type Thing, type ThingFacts } from './access-table.js';
import type { OrganizationStanding } from './organization-standing.js';
import type { Verdict } from './verdict.js';

type Rule<T extends Thing> = (standing: OrganizationStanding, facts: ThingFacts[T]) => Verdict;

/**
 * The table's answer. A caller who is not in the thing's organization (or a thing whose organization is
 * gone: `standing` undefined) is hidden from everything, whatever the row says.
 */
export function verdictFor<T extends Thing>(
  standing: OrganizationStanding | undefined,
  thing: T,
  action: ActionOn<T>,
  facts: ThingFacts[T],
): Verdict {
  if (!standing?.isMember) return { kind: 'hide' };
  const rule = (ACCESS_TABLE[thing] as unknown as Record<string, Rule<T>>)[action]!;
  return rule(standing, facts);
}

/** Whether the table allows it (for filters and `permissions`, where a refusal is not an error). */
export function allows<T extends Thing>(
  standing: OrganizationStanding | undefined,
  thing: T,
  action: ActionOn<T>,
  facts: ThingFacts[T],
): standing is OrganizationStanding {
  return verdictFor(standing, thing, action, facts).kind === 'allow';
}

/**
 * What every service calls first: returns when the table allows the action, throws the thing's own
 * "not found" when it hides it, and the row's refusal when it denies it.
 */
export function requireAccess<T extends Thing>(
  standing: OrganizationStanding | undefined,
  thing: T,
  action: ActionOn<T>,
  facts: ThingFacts[T],
): asserts standing is OrganizationStanding {
  const verdict = verdictFor(standing, thing, action, facts);
  if (verdict.kind === 'hide') throw HIDDEN_AS[thing](facts);
  if (verdict.kind === 'deny') throw verdict.error;
}

/** The same for things outside organizations; `userId`: the user whose thing it is, where there is one. */
export function requirePersonalAccess(principal: AnyPrincipal, action: PersonalAction, userId = ''): void {
  const verdict: Verdict = PERSONAL_TABLE[action](principal, userId);
  if (verdict.kind === 'deny') throw verdict.error;
  if (verdict.kind !== 'allow') throw PERSONAL_HIDDEN_AS[action]();
}
