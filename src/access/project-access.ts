/**
 * A team's access to one project, HCP Terraform's project team access (`team-projects`): a fixed level (`read`,
 * `write`, `maintain`, `admin`) or `custom` with HCP's project-access keys (`settings`, `teams`, `variable-sets`)
 * and workspace-access keys (`runs`, `variables`, `state-versions`, `sentinel-mocks`, `create`, `locking`, `move`,
 * `delete`, `run-tasks`, `policy-overrides`). The project's workspaces inherit the workspace part
 * (`workspaceGrantOf`), which then counts with the team's workspace access and the organization's rights as one
 * (workspace-grants.repository.ts, workspace-permissions.ts). Pure data and rules; no I/O.
 *
 * Enforced: `settings` (update, delete), `teams` (manage), `create` and `move` (workspaces into the project), and
 * every workspace key the workspace access enforces. Stored and echoed: `variable-sets` (Teamstage keeps no
 * variable sets) and `delete` (a workspace's deletion goes with its settings, as for `admin` workspace access).
 */
import { FIXED_LEVELS, type CustomKeys, type WorkspaceGrant } from './workspace-access.js';
import { isProjectAccessLevel, PROJECT_ACCESS_LEVELS, type ProjectAccessLevel } from '../shared/project-access-levels.js';

export { PROJECT_ACCESS_LEVELS, type ProjectAccessLevel };

export const PROJECT_KEY_VALUES = {
  settings: ['read', 'update', 'delete'],
  teams: ['none', 'read', 'manage'],
  'variable-sets': ['none', 'read', 'write'],
} as const;
type ProjectKey = keyof typeof PROJECT_KEY_VALUES;
export type ProjectKeys = { [K in ProjectKey]: (typeof PROJECT_KEY_VALUES)[K][number] };

export const WORKSPACE_KEY_VALUES = {
  runs: ['read', 'plan', 'apply'],
  variables: ['none', 'read', 'write'],
  'state-versions': ['none', 'read-outputs', 'read', 'write'],
  'sentinel-mocks': ['none', 'read'],
} as const;
type RankedWorkspaceKey = keyof typeof WORKSPACE_KEY_VALUES;
export const WORKSPACE_FLAGS = ['create', 'locking', 'move', 'delete', 'run-tasks', 'policy-overrides'] as const;
type WorkspaceFlag = (typeof WORKSPACE_FLAGS)[number];
export type ProjectWorkspaceKeys = { [K in RankedWorkspaceKey]: (typeof WORKSPACE_KEY_VALUES)[K][number] } & { [K in WorkspaceFlag]: boolean };

/** A team's access to a project as stored and shown. */
export interface ProjectGrant {
  access: ProjectAccessLevel;
  project: ProjectKeys;
  workspace: ProjectWorkspaceKeys;
}

const wsKeys = (keys: CustomKeys, flags: { create: boolean; move: boolean; delete: boolean }): ProjectWorkspaceKeys => ({
  runs: keys.runs, variables: keys.variables, 'state-versions': keys['state-versions'], 'sentinel-mocks': keys['sentinel-mocks'],
  locking: keys['workspace-locking'], 'run-tasks': keys['run-tasks'], 'policy-overrides': keys['policy-overrides'], ...flags,
});

/**
 * HCP's fixed levels: `read` and `write` give the workspace levels of those names; `maintain` gives workspace
 * admin and creating workspaces in the project; `admin` adds the project's settings, its teams' access and moving
 * workspaces out.
 */
export const FIXED_PROJECT_LEVELS: Record<Exclude<ProjectAccessLevel, 'custom'>, { project: ProjectKeys; workspace: ProjectWorkspaceKeys }> = {
  read: { project: { settings: 'read', teams: 'none', 'variable-sets': 'none' }, workspace: wsKeys(FIXED_LEVELS.read, { create: false, move: false, delete: false }) },
  write: { project: { settings: 'read', teams: 'none', 'variable-sets': 'none' }, workspace: wsKeys(FIXED_LEVELS.write, { create: false, move: false, delete: false }) },
  maintain: { project: { settings: 'read', teams: 'none', 'variable-sets': 'read' }, workspace: wsKeys(FIXED_LEVELS.admin, { create: true, move: false, delete: true }) },
  admin: { project: { settings: 'delete', teams: 'manage', 'variable-sets': 'write' }, workspace: wsKeys(FIXED_LEVELS.admin, { create: true, move: true, delete: true }) },
};

/** What `custom` grants for a key not sent (HCP's defaults: the least). */
export const CUSTOM_PROJECT_DEFAULTS = {
  project: { settings: 'read', teams: 'none', 'variable-sets': 'none' } as ProjectKeys,
  workspace: {
    runs: 'read', variables: 'none', 'state-versions': 'none', 'sentinel-mocks': 'none',
    create: false, locking: false, move: false, delete: false, 'run-tasks': false, 'policy-overrides': false,
  } as ProjectWorkspaceKeys,
};

/** What a project grant gives on each of the project's workspaces, as a workspace grant (`maintain` and `admin`: workspace admin). */
export function workspaceGrantOf(grant: ProjectGrant): WorkspaceGrant {
  const w = grant.workspace;
  const access = grant.access === 'maintain' || grant.access === 'admin' ? 'admin' : grant.access === 'custom' ? 'custom' : grant.access;
  return {
    access, runs: w.runs, variables: w.variables, 'state-versions': w['state-versions'], 'sentinel-mocks': w['sentinel-mocks'],
    'workspace-locking': w.locking, 'run-tasks': w['run-tasks'], 'policy-overrides': w['policy-overrides'],
  };
}

/** What one caller holds on one project through all their teams: the strongest value of each key. */
export interface EffectiveProjectAccess {
  project: ProjectKeys;
  create: boolean;
  move: boolean;
}

const rank = (values: readonly string[], value: string) => values.indexOf(value);

/** The union of several grants on one project; undefined for none. */
export function unionProjectGrants(grants: readonly ProjectGrant[]): EffectiveProjectAccess | undefined {
  if (grants.length === 0) return undefined;
  const result: EffectiveProjectAccess = { project: { ...CUSTOM_PROJECT_DEFAULTS.project }, create: false, move: false };
  for (const grant of grants) {
    for (const key of Object.keys(PROJECT_KEY_VALUES) as ProjectKey[]) {
      const values = PROJECT_KEY_VALUES[key] as readonly string[];
      if (rank(values, grant.project[key]) > rank(values, result.project[key])) (result.project as Record<string, string>)[key] = grant.project[key];
    }
    result.create ||= grant.workspace.create;
    result.move ||= grant.workspace.move;
  }
  return result;
}

export function projectKeyAtLeast<K extends ProjectKey>(keys: ProjectKeys, key: K, value: ProjectKeys[K]): boolean {
  const values = PROJECT_KEY_VALUES[key] as readonly string[];
  return rank(values, keys[key]) >= rank(values, value);
}

export interface ProjectGrantInput {
  access?: unknown;
  'project-access'?: unknown;
  'workspace-access'?: unknown;
}

export interface ProjectGrantProblem {
  attribute: string;
  detail: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sets the keys of `sent` on `base` (a copy); a problem for an unknown value. */
function mergeKeys<T extends object>(
  base: T, sent: unknown, ranked: Record<string, readonly string[]>, flags: readonly string[], attribute: string,
): { keys?: T; problem?: ProjectGrantProblem } {
  const keys = { ...base } as Record<string, unknown>;
  if (sent === undefined || sent === null) return { keys: keys as T };
  if (!isObject(sent)) return { problem: { attribute, detail: `${attribute} must be an object` } };
  for (const [key, value] of Object.entries(sent)) {
    if (value === undefined || value === null) continue;
    if (ranked[key]) {
      if (typeof value !== 'string' || !ranked[key]!.includes(value)) return { problem: { attribute: `${attribute}/${key}`, detail: `${key} must be one of ${ranked[key]!.join(', ')}` } };
      keys[key] = value;
    } else if (flags.includes(key)) {
      if (typeof value !== 'boolean') return { problem: { attribute: `${attribute}/${key}`, detail: `${key} must be true or false` } };
      keys[key] = value;
    } else {
      return { problem: { attribute: `${attribute}/${key}`, detail: `${key} is not a ${attribute} key` } };
    }
  }
  return { keys: keys as T };
}

/**
 * The grant a create or update produces from `input` over `current` (undefined on create). A fixed level sets
 * every key (keys sent beside it are ignored, as HCP does); `custom` takes the keys sent over the current ones
 * (HCP's defaults on create, or when changing to custom from a fixed level).
 */
export function mergeProjectGrant(current: ProjectGrant | undefined, input: ProjectGrantInput): { grant?: ProjectGrant; problem?: ProjectGrantProblem } {
  const access = input.access ?? current?.access;
  if (!isProjectAccessLevel(access)) {
    return { problem: { attribute: 'access', detail: `access must be one of ${PROJECT_ACCESS_LEVELS.join(', ')}` } };
  }
  const level = access;
  if (level !== 'custom') return { grant: { access: level, ...structuredClone(FIXED_PROJECT_LEVELS[level]) } };
  const base = current?.access === 'custom' ? current : CUSTOM_PROJECT_DEFAULTS;
  const project = mergeKeys(base.project, input['project-access'], PROJECT_KEY_VALUES, [], 'project-access');
  if (!project.keys) return { problem: project.problem! };
  const workspace = mergeKeys(base.workspace, input['workspace-access'], WORKSPACE_KEY_VALUES, WORKSPACE_FLAGS, 'workspace-access');
  if (!workspace.keys) return { problem: workspace.problem! };
  return { grant: { access: 'custom', project: project.keys, workspace: workspace.keys } };
}

/** A stored row's grant (migration 046's columns). */
export function projectGrantOfRow(row: { access: ProjectAccessLevel; project_access: string; workspace_access: string }): ProjectGrant {
  return {
    access: row.access,
    project: { ...CUSTOM_PROJECT_DEFAULTS.project, ...(JSON.parse(row.project_access) as Partial<ProjectKeys>) },
    workspace: { ...CUSTOM_PROJECT_DEFAULTS.workspace, ...(JSON.parse(row.workspace_access) as Partial<ProjectWorkspaceKeys>) },
  };
}
