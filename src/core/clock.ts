/** The current time in the one format stored and returned everywhere (UTC, ends in `Z`). */
export function nowIso(): string {
  return new Date().toISOString();
}
