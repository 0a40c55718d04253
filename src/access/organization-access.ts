/**
 * A team's organization-level permissions: the sixteen keys (HCP Terraform's fourteen plus
 * `access-secret-teams` and `delegate-policy-overrides`), the two implications and the five
 * consistency rules. Pure functions of plain data; no I/O.
 */
export const ORGANIZATION_ACCESS_KEYS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-run-tasks',
  'manage-workspaces',
  'manage-vcs-settings',
  'manage-agent-pools',
  'manage-projects',
  'read-projects',
  'read-workspaces',
  'manage-providers',
  'manage-modules',
  'manage-membership',
  'manage-teams',
  'manage-organization-access',
  'access-secret-teams',
  'delegate-policy-overrides',
] as const;

export type OrganizationAccessKey = (typeof ORGANIZATION_ACCESS_KEYS)[number];
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

/** "A requires B": when `key` is true, at least one of `requires` must be true. */
const RULES: ReadonlyArray<{ key: OrganizationAccessKey; requires: OrganizationAccessKey[]; all: boolean }> = [
  { key: 'manage-projects', requires: ['manage-workspaces'], all: true },
  { key: 'read-projects', requires: ['read-workspaces'], all: true },
  { key: 'manage-teams', requires: ['manage-membership'], all: true },
  { key: 'manage-organization-access', requires: ['manage-teams', 'manage-membership'], all: true },
  { key: 'access-secret-teams', requires: ['manage-membership', 'manage-teams', 'manage-organization-access'], all: false },
];

/** Implications applied before the rules: holding the "manage" right grants the matching "read" right. */
const IMPLICATIONS: ReadonlyArray<[OrganizationAccessKey, OrganizationAccessKey]> = [
  ['manage-workspaces', 'read-workspaces'],
  ['manage-projects', 'read-projects'],
];

export function applyImplications(access: OrganizationAccess): OrganizationAccess {
  const result = { ...access };
  for (const [source, implied] of IMPLICATIONS) if (result[source]) result[implied] = true;
  return result;
}

export function findViolations(access: OrganizationAccess): AccessViolation[] {
  const violations: AccessViolation[] = [];
  for (const rule of RULES) {
    if (!access[rule.key]) continue;
    const held = rule.requires.filter((key) => access[key]);
    const satisfied = rule.all ? held.length === rule.requires.length : held.length > 0;
    if (!satisfied) {
      const needed = rule.requires.join(rule.all ? ' and ' : ' or ');
      violations.push({ key: rule.key, detail: `${rule.key} requires ${needed}` });
    }
  }
  return violations;
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
