/**
 * A team's access to one workspace, HCP Terraform's team access (`team-workspaces`): a fixed level (`read`,
 * `plan`, `write`, `admin`) or `custom` with HCP's keys. Pure data and rules; no I/O. What each value lets a
 * caller do is decided in workspace-permissions.ts (and, from there, the access table).
 *
 * Teamstage enforces `runs` (read, queue, apply), `run-tasks` (attach and, as HCP's nearest power, override a
 * stage held by run tasks), `policy-overrides` (override a stage held by policies) and `admin` (settings, delete,
 * team access). It keeps no variables, state or Sentinel mocks and no workspace locks: `variables`,
 * `state-versions`, `sentinel-mocks` and `workspace-locking` are stored and echoed (and shown in the workspace's
 * `permissions`), so the tfe provider reads back what it wrote.
 */

import { CUSTOM_DEFAULTS, CUSTOM_KEY_VALUES, FLAG_KEYS, isWorkspaceAccessLevel, WORKSPACE_ACCESS_LEVELS, type CustomKeys, type FlagKey, type RankedKey, type WorkspaceAccessLevel } from '../shared/workspace-access-keys.js';

// The levels and keys are shared with the console (src/shared/workspace-access-keys.ts); what they grant is here.
export { CUSTOM_DEFAULTS, CUSTOM_KEY_VALUES, FLAG_KEYS, WORKSPACE_ACCESS_LEVELS, type CustomKeys, type FlagKey, type RankedKey, type WorkspaceAccessLevel };

/** A team's access to a workspace as stored and shown: the level and every key it grants. */
export interface WorkspaceGrant extends CustomKeys {
  access: WorkspaceAccessLevel;
}

/**
 * HCP's fixed levels. `policy-overrides` is HCP's beta custom key; its fixed levels do not say, so here
 * `admin` holds it (a workspace's admins may override its stages) and the others do not.
 */
export const FIXED_LEVELS: Record<Exclude<WorkspaceAccessLevel, 'custom'>, CustomKeys> = {
  read: { runs: 'read', variables: 'read', 'state-versions': 'read', 'sentinel-mocks': 'none', 'workspace-locking': false, 'run-tasks': false, 'policy-overrides': false },
  plan: { runs: 'plan', variables: 'read', 'state-versions': 'read', 'sentinel-mocks': 'none', 'workspace-locking': false, 'run-tasks': false, 'policy-overrides': false },
  write: { runs: 'apply', variables: 'write', 'state-versions': 'write', 'sentinel-mocks': 'read', 'workspace-locking': true, 'run-tasks': false, 'policy-overrides': false },
  admin: { runs: 'apply', variables: 'write', 'state-versions': 'write', 'sentinel-mocks': 'read', 'workspace-locking': true, 'run-tasks': true, 'policy-overrides': true },
};


/** What one caller holds on one workspace through all their teams: the strongest value of each key, and admin. */
export interface EffectiveWorkspaceAccess extends CustomKeys {
  admin: boolean;
}

export function rankOf<K extends RankedKey>(key: K, value: CustomKeys[K]): number {
  return (CUSTOM_KEY_VALUES[key] as readonly string[]).indexOf(value);
}

/** The union of several grants (a member of several teams holds the most any of them grants); undefined for none. */
export function unionGrants(grants: readonly WorkspaceGrant[]): EffectiveWorkspaceAccess | undefined {
  if (grants.length === 0) return undefined;
  const result: EffectiveWorkspaceAccess = { ...CUSTOM_DEFAULTS, admin: false };
  for (const grant of grants) {
    if (grant.access === 'admin') result.admin = true;
    for (const key of Object.keys(CUSTOM_KEY_VALUES) as RankedKey[]) {
      if (rankOf(key, grant[key]) > rankOf(key, result[key])) (result as Record<RankedKey, string>)[key] = grant[key];
    }
    for (const key of FLAG_KEYS) if (grant[key]) result[key] = true;
  }
  return result;
}

export type GrantInput = { access?: unknown } & { [K in RankedKey | FlagKey]?: unknown };

/** A problem with a requested grant: the attribute and HCP's sentence. */
export interface GrantProblem {
  attribute: string;
  detail: string;
}

const LABELS: Record<RankedKey | FlagKey, string> = {
  runs: 'Runs', variables: 'Variables', 'state-versions': 'State versions', 'sentinel-mocks': 'Sentinel mocks',
  'workspace-locking': 'Workspace locking', 'run-tasks': 'Run tasks', 'policy-overrides': 'Policy overrides',
};

/**
 * The grant a create or update produces from `input` (the keys sent) over `current` (undefined on create).
 * A fixed level sets every key; custom keys may be sent only with `custom` (HCP's 422 otherwise); keys of a
 * custom grant not sent keep their value (HCP's defaults on create).
 */
export function mergeGrant(current: WorkspaceGrant | undefined, input: GrantInput): { grant?: WorkspaceGrant; problem?: GrantProblem } {
  const access = input.access ?? current?.access;
  if (!isWorkspaceAccessLevel(access)) {
    return { problem: { attribute: 'access', detail: `access must be one of ${WORKSPACE_ACCESS_LEVELS.join(', ')}` } };
  }
  const level = access;
  const sent = ([...Object.keys(CUSTOM_KEY_VALUES), ...FLAG_KEYS] as Array<RankedKey | FlagKey>).filter((key) => input[key] !== undefined && input[key] !== null);
  if (level !== 'custom') {
    const first = sent[0];
    if (first) return { problem: { attribute: first, detail: `${LABELS[first]} is read-only when access level is '${level}'; use the 'custom' access level to set this attribute.` } };
    return { grant: { access: level, ...FIXED_LEVELS[level] } };
  }
  const base: CustomKeys = current ? pick(current) : { ...CUSTOM_DEFAULTS };
  for (const key of sent) {
    const value = input[key];
    if ((FLAG_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') return { problem: { attribute: key, detail: `${key} must be true or false` } };
      (base as Record<string, unknown>)[key] = value;
    } else {
      const allowed = CUSTOM_KEY_VALUES[key as RankedKey] as readonly string[];
      if (typeof value !== 'string' || !allowed.includes(value)) return { problem: { attribute: key, detail: `${key} must be one of ${allowed.join(', ')}` } };
      (base as Record<string, unknown>)[key] = value;
    }
  }
  return { grant: { access: 'custom', ...base } };
}

function pick(grant: WorkspaceGrant): CustomKeys {
  const { access: _access, ...keys } = grant;
  return keys;
}

/** A stored row's grant (migration 034's columns). */
export function grantOfRow(row: {
  access: WorkspaceAccessLevel; runs: CustomKeys['runs']; variables: CustomKeys['variables']; state_versions: CustomKeys['state-versions'];
  sentinel_mocks: CustomKeys['sentinel-mocks']; workspace_locking: number; run_tasks: number; policy_overrides: number;
}): WorkspaceGrant {
  return {
    access: row.access,
    runs: row.runs,
    variables: row.variables,
    'state-versions': row.state_versions,
    'sentinel-mocks': row.sentinel_mocks,
    'workspace-locking': row.workspace_locking === 1,
    'run-tasks': row.run_tasks === 1,
    'policy-overrides': row.policy_overrides === 1,
  };
}
