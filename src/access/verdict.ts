import type { ApiError } from '../core/errors.js';

/**
 * The answer of the access table for one caller, thing and action. `hide` answers as if the thing did not
 * exist (404): a caller who may not see a thing must not learn that it is there. `deny` is for a caller
 * who can see the thing and is refused this action, with the error that says why (a 403, or the owners
 * team's own 422).
 */
export type Verdict = { kind: 'allow' } | { kind: 'hide' } | { kind: 'deny'; error: ApiError };

export const allow: Verdict = { kind: 'allow' };
export const hide: Verdict = { kind: 'hide' };
export function deny(error: ApiError): Verdict {
  return { kind: 'deny', error };
}

/** `allow` when the condition holds, otherwise `hide`: the rule for everything not in the table. */
export function allowOrHide(allowed: boolean): Verdict {
  return allowed ? allow : hide;
}

/**
 * For actions on a thing the caller may see: allowed, refused with `refusal` (403) when the caller sees the
 * thing, hidden (404) when it does not.
 */
export function allowOrDeny(allowed: boolean, sees: boolean, refusal: () => ApiError): Verdict {
  if (allowed) return allow;
  return sees ? deny(refusal()) : hide;
}
