/**
 * A team's access to one workspace (`/api/v2/team-workspaces`, HCP's team access) in words: the levels, the
 * custom keys and their values come from src/shared/workspace-access-keys.ts, the server's own lists; each is
 * named here by a `Record` over them, so a level, key or value added there does not compile until it has words
 * here. The server stays the judge of what a combination means and whether it is allowed.
 */
import {
  CUSTOM_DEFAULTS as SHARED_DEFAULTS, CUSTOM_KEY_VALUES, FLAG_KEYS as SHARED_FLAG_KEYS, WORKSPACE_ACCESS_LEVELS,
  type CustomKeys, type FlagKey, type RankedKey, type WorkspaceAccessLevel,
} from '../../shared/workspace-access-keys.js';

export type AccessLevel = WorkspaceAccessLevel;
export type { FlagKey, RankedKey };

const LEVEL_WORDS: Record<AccessLevel, { label: string; hint: string }> = {
  read: { label: 'Read', hint: 'See the workspace and its runs.' },
  plan: { label: 'Plan', hint: 'Read, and queue plans.' },
  write: { label: 'Write', hint: 'Plan, and apply, discard and cancel runs.' },
  admin: { label: 'Admin', hint: 'Write, and change its settings, team access and run tasks; override its stages.' },
  custom: { label: 'Custom', hint: 'Choose each permission below.' },
};

export const ACCESS_LEVELS: readonly { value: AccessLevel; label: string; hint: string }[] = WORKSPACE_ACCESS_LEVELS.map((value) => ({ value, ...LEVEL_WORDS[value] }));

const RANKED_WORDS: { [K in RankedKey]: { label: string; values: Record<(typeof CUSTOM_KEY_VALUES)[K][number], string> } } = {
  runs: { label: 'Runs', values: { read: 'Read', plan: 'Queue plans', apply: 'Apply' } },
  variables: { label: 'Variables', values: { none: 'None', read: 'Read', write: 'Write' } },
  'state-versions': { label: 'State versions', values: { none: 'None', 'read-outputs': 'Read outputs', read: 'Read', write: 'Write' } },
  'sentinel-mocks': { label: 'Sentinel mocks', values: { none: 'None', read: 'Read' } },
};

/** The custom keys with several values, weakest first, each value with its words. */
export const RANKED_KEYS = (Object.keys(CUSTOM_KEY_VALUES) as RankedKey[]).map((key) => ({
  key,
  label: RANKED_WORDS[key].label,
  values: CUSTOM_KEY_VALUES[key].map((value) => [value, (RANKED_WORDS[key].values as Record<string, string>)[value]!] as const),
}));

const FLAG_WORDS: Record<FlagKey, string> = {
  'workspace-locking': 'Lock and unlock the workspace',
  'run-tasks': 'Manage run tasks (attach them; override a stage they hold)',
  'policy-overrides': 'Override a stage held by policies',
};

/** The custom keys that are on or off. */
export const FLAG_KEYS = SHARED_FLAG_KEYS.map((key) => ({ key, label: FLAG_WORDS[key] }));

/** A `team-workspaces` resource's attributes: the level and every key it grants. */
export type TeamWorkspaceAttributes = { access: AccessLevel } & Record<RankedKey, string> & Record<FlagKey, boolean>;

/** What a form sends: the level, and the custom keys only with `custom` (a key sent with a fixed level is a 422). */
export interface AccessChoice {
  access: AccessLevel;
  custom: Record<RankedKey, string> & Record<FlagKey, boolean>;
}

/** HCP's defaults for `custom`: the least of each key. */
export const CUSTOM_DEFAULTS: AccessChoice['custom'] = { ...SHARED_DEFAULTS };

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
