/**
 * A team's organization-level permissions: the rules as data (the keys, the two implications, the five
 * consistency rules) live in src/shared/organization-access-rules.ts, shared with the console; here they are
 * applied to stored and requested access. Pure functions of plain data; no I/O.
 */
import {
  ACCESS_IMPLICATIONS, ACCESS_RULES, keepsRule, ORGANIZATION_ACCESS_KEYS, requirementText, type OrganizationAccessKey,
} from '../shared/organization-access-rules.js';

export { ORGANIZATION_ACCESS_KEYS, type OrganizationAccessKey };
export type OrganizationAccess = Record<OrganizationAccessKey, boolean>;

function allKeysSetTo(value: boolean): Readonly<OrganizationAccess> {
  const access = {} as OrganizationAccess;
  for (const key of ORGANIZATION_ACCESS_KEYS) access[key] = value;
  return Object.freeze(access);
}

// Every request builds several of these (its standing, each team it reads): copying a template is a
// fraction of the cost of Object.fromEntries over the keys (issue 18's profile: 5% of a read's CPU).
const NONE = allKeysSetTo(false);
const ALL = allKeysSetTo(true);

export function noAccess(): OrganizationAccess {
  return { ...NONE };
}

export function fullAccess(): OrganizationAccess {
  return { ...ALL };
}

/** Reads a stored JSON object; keys missing from older rows are false. */
export function parseStoredAccess(json: string): OrganizationAccess {
  const stored = JSON.parse(json) as Partial<OrganizationAccess>;
  const access = noAccess();
  for (const key of ORGANIZATION_ACCESS_KEYS) access[key] = stored[key] === true;
  return access;
}

export interface AccessViolation {
  key: OrganizationAccessKey;
  detail: string;
}

export function applyImplications(access: OrganizationAccess): OrganizationAccess {
  const result = { ...access };
  for (const [source, implied] of ACCESS_IMPLICATIONS) if (result[source]) result[implied] = true;
  return result;
}

export function findViolations(access: OrganizationAccess): AccessViolation[] {
  return ACCESS_RULES.filter((rule) => !keepsRule(access, rule)).map((rule) => ({ key: rule.key, detail: `${rule.key} requires ${requirementText(rule)}` }));
}

export type AccessChange = Partial<OrganizationAccess>;

/**
 * The access a create or update produces: the current state with only the sent keys changed, then the
 * implications. The caller rejects the request when `violations` is not empty and stores nothing.
 */
export function mergeOrganizationAccess(
  current: OrganizationAccess,
  change: AccessChange,
): { access: OrganizationAccess; violations: AccessViolation[] } {
  const merged = { ...current };
  for (const key of ORGANIZATION_ACCESS_KEYS) {
    const value = change[key];
    if (typeof value === 'boolean') merged[key] = value;
  }
  const access = applyImplications(merged);
  return { access, violations: findViolations(access) };
}

/** The union of several teams' access: a member of several teams holds every right any of them grants. */
export function unionAccess(list: OrganizationAccess[]): OrganizationAccess {
  const result = noAccess();
  for (const access of list) for (const key of ORGANIZATION_ACCESS_KEYS) if (access[key]) result[key] = true;
  return result;
}
