/**
 * A team's organization-level permissions as data: the sixteen keys (HCP Terraform's fourteen plus
 * `access-secret-teams` and `delegate-policy-overrides`), the two implications and the five consistency
 * rules, with the words that state a rule. The server enforces them (src/access/organization-access.ts);
 * the console shows them before saving (src/web/teams/access-rules.ts). Dependency-free.
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

/** "A requires B": when `key` is true, all (`all`) or at least one of `requires` must be true. */
export interface AccessRule {
  key: OrganizationAccessKey;
  requires: readonly OrganizationAccessKey[];
  all: boolean;
}

export const ACCESS_RULES: readonly AccessRule[] = [
  { key: 'manage-projects', requires: ['manage-workspaces'], all: true },
  { key: 'read-projects', requires: ['read-workspaces'], all: true },
  { key: 'manage-teams', requires: ['manage-membership'], all: true },
  { key: 'manage-organization-access', requires: ['manage-teams', 'manage-membership'], all: true },
  { key: 'access-secret-teams', requires: ['manage-membership', 'manage-teams', 'manage-organization-access'], all: false },
];

/** Implications applied before the rules: holding the "manage" right grants the matching "read" right. */
export const ACCESS_IMPLICATIONS: ReadonlyArray<readonly [source: OrganizationAccessKey, implied: OrganizationAccessKey]> = [
  ['manage-workspaces', 'read-workspaces'],
  ['manage-projects', 'read-projects'],
];

/** Whether `access` (implications already applied) keeps `rule`; a rule whose key is off is kept. */
export function keepsRule(access: Partial<Record<OrganizationAccessKey, boolean>>, rule: AccessRule): boolean {
  if (!access[rule.key]) return true;
  const held = rule.requires.filter((key) => access[key]).length;
  return rule.all ? held === rule.requires.length : held > 0;
}

/** What a rule needs, in words: "manage-teams and manage-membership", or "a or b or c" (`nameOf` names each key). */
export function requirementText(rule: AccessRule, nameOf: (key: OrganizationAccessKey) => string = (key) => key): string {
  return rule.requires.map(nameOf).join(rule.all ? ' and ' : ' or ');
}
