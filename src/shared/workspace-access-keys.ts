/**
 * HCP's team access to a workspace (`team-workspaces`): its levels, its custom keys and their values, shared by
 * the server (src/access/workspace-access.ts, which says what each grants and decides) and the console
 * (src/web/teams/workspace-access-model.ts, which names them in words). Dependency-free.
 */

export const WORKSPACE_ACCESS_LEVELS = ['read', 'plan', 'write', 'admin', 'custom'] as const;
export type WorkspaceAccessLevel = (typeof WORKSPACE_ACCESS_LEVELS)[number];

export function isWorkspaceAccessLevel(value: unknown): value is WorkspaceAccessLevel {
  return typeof value === 'string' && (WORKSPACE_ACCESS_LEVELS as readonly string[]).includes(value);
}

/** Each custom key's values, weakest first (the order decides which of two grants is the stronger). */
export const CUSTOM_KEY_VALUES = {
  runs: ['read', 'plan', 'apply'],
  variables: ['none', 'read', 'write'],
  'state-versions': ['none', 'read-outputs', 'read', 'write'],
  'sentinel-mocks': ['none', 'read'],
} as const;
export type RankedKey = keyof typeof CUSTOM_KEY_VALUES;
export const FLAG_KEYS = ['workspace-locking', 'run-tasks', 'policy-overrides'] as const;
export type FlagKey = (typeof FLAG_KEYS)[number];

export type CustomKeys = { [K in RankedKey]: (typeof CUSTOM_KEY_VALUES)[K][number] } & { [K in FlagKey]: boolean };

/** What `custom` grants for a key not sent: the least (HCP's defaults). */
export const CUSTOM_DEFAULTS: CustomKeys = {
  runs: 'read', variables: 'none', 'state-versions': 'none', 'sentinel-mocks': 'none', 'workspace-locking': false, 'run-tasks': false, 'policy-overrides': false,
};
