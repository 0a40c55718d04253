/**
 * The organization access a team grants, grouped the way people think of it, with the rules the server
 * enforces, imported from src/shared/organization-access-rules.ts (the server's own list) so the form can
 * show them before saving. The server stays the judge: the console lets a forbidden combination be sent
 * and shows the server's refusal at the field.
 */
import {
  ACCESS_IMPLICATIONS, ACCESS_RULES, keepsRule, requirementText, type OrganizationAccessKey,
} from '../../shared/organization-access-rules.js';

export interface AccessKeyInfo {
  key: string;
  label: string;
  hint: string;
}

export const ACCESS_GROUPS: { title: string; keys: AccessKeyInfo[] }[] = [
  {
    title: 'Workspaces and projects',
    keys: [
      { key: 'read-workspaces', label: 'Read workspaces', hint: 'See every workspace of the organization.' },
      { key: 'manage-workspaces', label: 'Manage workspaces', hint: 'Create, change and delete any workspace.' },
      { key: 'read-projects', label: 'Read projects', hint: 'See every project.' },
      { key: 'manage-projects', label: 'Manage projects', hint: 'Create, change and delete projects.' },
    ],
  },
  {
    title: 'Run tasks and policies',
    keys: [
      { key: 'manage-run-tasks', label: 'Manage run tasks', hint: 'Create run tasks and attach them to workspaces.' },
      { key: 'manage-policies', label: 'Manage policies', hint: 'Create and change policy sets.' },
      { key: 'manage-policy-overrides', label: 'Override policies', hint: 'Override failed policy checks.' },
      { key: 'delegate-policy-overrides', label: 'Delegate policy overrides', hint: 'Let others override policy checks.' },
    ],
  },
  {
    title: 'Version control and registry',
    keys: [
      { key: 'manage-vcs-settings', label: 'Manage VCS settings', hint: 'Connect version control providers and SSH keys.' },
      { key: 'manage-agent-pools', label: 'Manage agent pools', hint: 'Create and change agent pools.' },
      { key: 'manage-providers', label: 'Manage providers', hint: 'Publish private providers.' },
      { key: 'manage-modules', label: 'Manage modules', hint: 'Publish private modules.' },
    ],
  },
  {
    title: 'People and teams',
    keys: [
      { key: 'manage-membership', label: 'Manage membership', hint: 'Invite and remove people; add them to teams.' },
      { key: 'manage-teams', label: 'Manage teams', hint: 'Create, rename and delete teams.' },
      { key: 'manage-organization-access', label: 'Manage organization access', hint: "Change any team's organization access." },
      { key: 'access-secret-teams', label: 'Access secret teams', hint: 'See and manage secret teams too.' },
    ],
  },
];

export const ACCESS_KEYS = ACCESS_GROUPS.flatMap((group) => group.keys.map((info) => info.key));

const LABELS = new Map(ACCESS_GROUPS.flatMap((group) => group.keys.map((info) => [info.key, info.label] as const)));

export type Access = Record<string, boolean>;

export function label(key: string): string {
  return LABELS.get(key) ?? key;
}

/** The key that grants `key` by implication, when it is checked. */
export function impliedBy(access: Access, key: string): string | undefined {
  return ACCESS_IMPLICATIONS.find(([source, implied]) => implied === key && access[source])?.[0];
}

export function effective(access: Access): Access {
  const result = { ...access };
  for (const [source, implied] of ACCESS_IMPLICATIONS) if (result[source]) result[implied] = true;
  return result;
}

/** The rule of `key` in words, and whether the current choice breaks it; undefined when it has none. */
export function ruleFor(access: Access, key: string): { text: string; broken: boolean } | undefined {
  const rule = ACCESS_RULES.find((candidate) => candidate.key === key);
  if (!rule) return undefined;
  return { text: `Needs ${requirementText(rule, label)}.`, broken: !keepsRule(effective(access) as Partial<Record<OrganizationAccessKey, boolean>>, rule) };
}
