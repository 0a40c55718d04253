import type { OrganizationsTable } from '../db/schema.js';

/**
 * HCP's organization settings that go-tfe and the tfe provider read and write (issue 37), stored and echoed.
 * None changes what Teamstage does except `default-execution-mode` (its own column: workspaces that do not
 * set a mode follow it) — Teamstage has no SAML, no cost estimation, no assessments, no stacks, no HYOK, and a
 * user token acts in every organization its user belongs to whatever `user-tokens-enabled` says.
 * Defaults are HCP's for a new organization.
 */
export const FLAG_SETTINGS = {
  'assessments-enforced': false,
  'cost-estimation-enabled': false,
  'send-passing-statuses-for-untriggered-speculative-plans': false,
  'aggregated-commit-status-enabled': false,
  'speculative-plan-management-enabled': true,
  'allow-force-delete-workspaces': false,
  'enforce-hyok': false,
  'stacks-enabled': false,
  'registry-monorepo-support-enabled': false,
  'user-tokens-enabled': true,
  'max-ttl-enabled': false,
} as const satisfies Record<string, boolean>;

export const NUMBER_SETTINGS = {
  /** Minutes, HCP's defaults (20160 = 14 days; 20160 idle). */
  'session-remember': 20160,
  'session-timeout': 20160,
} as const satisfies Record<string, number>;

export const TEXT_SETTINGS = {
  'collaborator-auth-policy': 'password',
  'owners-team-saml-role-id': null,
} as const satisfies Record<string, string | null>;

export type OrganizationSettingsInput = Partial<
  { [K in keyof typeof FLAG_SETTINGS]: boolean } & { [K in keyof typeof NUMBER_SETTINGS]: number } & { [K in keyof typeof TEXT_SETTINGS]: string | null }
>;

const ALL_KEYS = [...Object.keys(FLAG_SETTINGS), ...Object.keys(NUMBER_SETTINGS), ...Object.keys(TEXT_SETTINGS)];

/** The stored object with the attributes sent laid over it (only known keys). */
export function mergedSettings(stored: string | undefined, input: OrganizationSettingsInput): string | undefined {
  // The route's schema checks types; a value of another type than the default's is still never stored.
  const changes = Object.entries(input).filter(([key, value]) => ALL_KEYS.includes(key) && value !== undefined && sameType(key, value));
  if (changes.length === 0) return undefined;
  return JSON.stringify({ ...parsed(stored), ...Object.fromEntries(changes) });
}

/** Every setting as the API shows it: stored, else HCP's default. */
export function settingsAttributes(row: Pick<OrganizationsTable, 'settings'>): Record<string, unknown> {
  return { ...FLAG_SETTINGS, ...NUMBER_SETTINGS, ...TEXT_SETTINGS, ...parsed(row.settings) };
}

const DEFAULTS: Record<string, unknown> = { ...FLAG_SETTINGS, ...NUMBER_SETTINGS, ...TEXT_SETTINGS };

function sameType(key: string, value: unknown): boolean {
  const fallback = DEFAULTS[key];
  return fallback === null ? value === null || typeof value === 'string' : typeof value === typeof fallback;
}

function parsed(stored: string | undefined): Record<string, unknown> {
  if (!stored) return {};
  const value = JSON.parse(stored) as unknown;
  return typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).filter(([key]) => ALL_KEYS.includes(key))) : {};
}
