/**
 * A team's access to one workspace (`/api/v2/team-workspaces`, HCP's team access) in words: the levels, the
 * custom keys and their values. The server's lists are src/access/workspace-access.ts, which the console may not
 * import (web imports only src/shared); test/unit/console-workspace-access-model.test.ts fails when these and
 * the server's differ, so a new level or key cannot be missed here. The server stays the judge of what a
 * combination means and whether it is allowed.
 */

export type AccessLevel = 'read' | 'plan' | 'write' | 'admin' | 'custom';

export const ACCESS_LEVELS: readonly { value: AccessLevel; label: string; hint: string }[] = [
  { value: 'read', label: 'Read', hint: 'See the workspace and its runs.' },
  { value: 'plan', label: 'Plan', hint: 'Read, and queue plans.' },
  { value: 'write', label: 'Write', hint: 'Plan, and apply, discard and cancel runs.' },
  { value: 'admin', label: 'Admin', hint: 'Write, and change its settings, team access and run tasks; override its stages.' },
  { value: 'custom', label: 'Custom', hint: 'Choose each permission below.' },
];

/** The custom keys with several values, weakest first. */
export const RANKED_KEYS = [
  { key: 'runs', label: 'Runs', values: [['read', 'Read'], ['plan', 'Queue plans'], ['apply', 'Apply']] },
  { key: 'variables', label: 'Variables', values: [['none', 'None'], ['read', 'Read'], ['write', 'Write']] },
  { key: 'state-versions', label: 'State versions', values: [['none', 'None'], ['read-outputs', 'Read outputs'], ['read', 'Read'], ['write', 'Write']] },
  { key: 'sentinel-mocks', label: 'Sentinel mocks', values: [['none', 'None'], ['read', 'Read']] },
] as const;

/** The custom keys that are on or off. */
export const FLAG_KEYS = [
  { key: 'workspace-locking', label: 'Lock and unlock the workspace' },
  { key: 'run-tasks', label: 'Manage run tasks (attach them; override a stage they hold)' },
  { key: 'policy-overrides', label: 'Override a stage held by policies' },
] as const;

export type RankedKey = (typeof RANKED_KEYS)[number]['key'];
export type FlagKey = (typeof FLAG_KEYS)[number]['key'];

/** A `team-workspaces` resource's attributes: the level and every key it grants. */
export type TeamWorkspaceAttributes = { access: AccessLevel } & Record<RankedKey, string> & Record<FlagKey, boolean>;

/** What a form sends: the level, and the custom keys only with `custom` (a key sent with a fixed level is a 422). */
export interface AccessChoice {
  access: AccessLevel;
  custom: Record<RankedKey, string> & Record<FlagKey, boolean>;
}

/** HCP's defaults for `custom`: the least of each key. */
export const CUSTOM_DEFAULTS: AccessChoice['custom'] = {
  runs: 'read', variables: 'none', 'state-versions': 'none', 'sentinel-mocks': 'none',
  'workspace-locking': false, 'run-tasks': false, 'policy-overrides': false,
};

export function choiceOf(attributes: TeamWorkspaceAttributes | undefined): AccessChoice {
  if (!attributes) return { access: 'read', custom: { ...CUSTOM_DEFAULTS } };
  const custom = { ...CUSTOM_DEFAULTS };
  for (const { key } of RANKED_KEYS) if (typeof attributes[key] === 'string') custom[key] = attributes[key];
  for (const { key } of FLAG_KEYS) custom[key] = attributes[key] === true;
  return { access: attributes.access, custom };
}

/** The attributes a create or change sends for this choice. */
export function attributesOf(choice: AccessChoice): Record<string, string | boolean> {
  return choice.access === 'custom' ? { access: 'custom', ...choice.custom } : { access: choice.access };
}

export function levelLabel(access: string): string {
  return ACCESS_LEVELS.find((level) => level.value === access)?.label ?? access;
}

function valueLabel(key: RankedKey, value: string): string {
  const values = RANKED_KEYS.find((ranked) => ranked.key === key)?.values as readonly (readonly [string, string])[] | undefined;
  return values?.find(([candidate]) => candidate === value)?.[1] ?? value;
}

/** The access in words: "Write", or for custom "Custom: runs Apply, variables Read, lock and unlock the workspace". */
export function accessWords(attributes: TeamWorkspaceAttributes): string {
  if (attributes.access !== 'custom') return levelLabel(attributes.access);
  const ranked = RANKED_KEYS.filter(({ key }) => attributes[key] !== 'none').map(({ key, label }) => `${label.toLowerCase()} ${valueLabel(key, attributes[key])}`);
  const flags = FLAG_KEYS.filter(({ key }) => attributes[key] === true).map(({ label }) => label.replace(/ \(.*\)$/, '').toLowerCase());
  return `Custom: ${[...ranked, ...flags].join(', ')}`;
}
