/**
 * The tables authentication and an organization standing are computed from (identity/authenticate.ts,
 * authz/standing.repository.ts, organizations/organization-gate.ts). They reference only each other, so
 * no cascade from another table reaches them, and no trigger on another table writes them.
 */
const IDENTITY_TABLES = new Set(['tokens', 'users', 'organizations', 'organization_memberships', 'teams', 'team_memberships']);

const WRITE_TARGET = /^\s*(insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;
/** Every write target in a statement (also `do update set` and `for update`, naming no table: harmless). */
const ANY_WRITE_TARGET = /\b(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;
const WITH = /^\s*with\b/i;
const READ = /^\s*select\b/i;
const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|rollback|end|savepoint|release)\b/i;

/**
 * Whether a statement may change what authentication or a standing reads. Conservative: any statement
 * whose target it cannot name (DDL, say) counts as one that may. Transaction control is the caller's
 * concern: a COMMIT publishes the writes sent before it (db/pg-write-counter.ts).
 *
 * One write to those tables is exempt, because POST /teams makes it on every request: a plain INSERT of
 * a team. Authentication and standings reach teams only from a token or a membership pointing at one,
 * and a row that did not exist a moment ago has nothing pointing at it yet (the foreign keys see to
 * that). ON CONFLICT DO NOTHING leaves existing rows alone, so it stays exempt (teams/team-inserts.ts
 * sends that); ON CONFLICT DO UPDATE may change an existing row, so it is not exempt.
 */
export function mayChangeIdentity(sql: string): boolean {
  if (READ.test(sql) || TRANSACTION_CONTROL.test(sql)) return false;
  // A statement with data-modifying WITH (delivery.repository.ts) writes every table it names after a
  // write verb; it may change identity if any of them is an identity table.
  if (WITH.test(sql)) return [...sql.matchAll(ANY_WRITE_TARGET)].some(([, table]) => IDENTITY_TABLES.has(table!.toLowerCase()));
  const target = WRITE_TARGET.exec(sql);
  if (!target) return true;
  const [, verb, table] = target;
  if (!IDENTITY_TABLES.has(table!.toLowerCase())) return false;
  const newTeam = /^insert/i.test(verb!) && table!.toLowerCase() === 'teams' && !/\bdo\s+update\b/i.test(sql);
  return !newTeam;
}
