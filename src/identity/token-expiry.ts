import { Errors } from '../core/errors.js';

/**
 * A token's lifetime when the request names none: two years, as HCP Terraform gives every user, team and
 * organization token created without `expired-at` (go-tfe's tests check it to the minute).
 */
export const DEFAULT_TOKEN_LIFETIME_YEARS = 2;

/**
 * The one expiry rule of every token kind (user, team, organization, audit trail): an ISO 8601 timestamp
 * in the future, stored in our `Z` form (a past one is a 422); absent or null, the default lifetime from
 * `now`. The site token is not made here and never expires.
 */
export function tokenExpiry(value: string | null | undefined, now: Date = new Date()): string {
  if (value === undefined || value === null) {
    const expiry = new Date(now.getTime());
    expiry.setUTCFullYear(expiry.getUTCFullYear() + DEFAULT_TOKEN_LIFETIME_YEARS);
    return expiry.toISOString();
  }
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(time)) throw Errors.tokenExpiryNotATimestamp();
  if (time <= now.getTime()) throw Errors.tokenExpiryInThePast();
  return new Date(time).toISOString();
}
