import { Errors } from '../core/errors.js';

/** An ISO 8601 date and time with its zone (`Z` or an offset); seconds and their fractions optional. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The audit trail's `since` (HCP: "only audit trails created after this date", as `YYYY-MM-DDTHH:MM:SS.SSSZ`)
 * as the stored form (`toISOString()`), or undefined when absent. go-tfe sends RFC 3339 (`…T00:00:00Z` or an
 * offset); a `+` of an offset that arrived unencoded has become a space, and is taken back. Anything else is
 * a 422 naming the parameter: a time without its zone would be read in some unknown zone.
 */
export function parseSince(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  if (!ISO_TIME.test(text)) throw Errors.invalidAuditTrailSince();
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw Errors.invalidAuditTrailSince();
  return new Date(time).toISOString();
}
