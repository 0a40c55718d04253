import type { WorkspacesTable } from '../db/schema.js';

/**
 * Workspace settings Teamstage stores only to give them back (issue 28): the `tfe` provider sets them on
 * every tfe_workspace and plans a change forever when the answer differs. None changes what Teamstage does
 * (no VCS, no state, no assessments). Defaults are HCP Terraform's for a workspace created without them.
 */
export const FLAG_SETTINGS = {
  'allow-destroy-plan': 'allow_destroy_plan',
  'assessments-enabled': 'assessments_enabled',
  'auto-apply-run-trigger': 'auto_apply_run_trigger',
  'file-triggers-enabled': 'file_triggers_enabled',
  'global-remote-state': 'global_remote_state',
  'queue-all-runs': 'queue_all_runs',
  'speculative-enabled': 'speculative_enabled',
  'structured-run-output-enabled': 'structured_run_output_enabled',
} as const;

export const LIST_SETTINGS = {
  'trigger-prefixes': 'trigger_prefixes',
  'trigger-patterns': 'trigger_patterns',
  'tag-names': 'tag_names',
} as const;

export const TEXT_SETTINGS = {
  'source-name': 'source_name',
  'source-url': 'source_url',
  'terraform-version': 'terraform_version',
} as const;

export const FLAG_DEFAULTS: Record<keyof typeof FLAG_SETTINGS, boolean> = {
  'allow-destroy-plan': true,
  'assessments-enabled': false,
  'auto-apply-run-trigger': false,
  'file-triggers-enabled': true,
  'global-remote-state': false,
  'queue-all-runs': false,
  'speculative-enabled': true,
  'structured-run-output-enabled': true,
};

export type WorkspaceSettingsInput = Partial<
  { [K in keyof typeof FLAG_SETTINGS]: boolean } & { [K in keyof typeof LIST_SETTINGS]: string[] } & { [K in keyof typeof TEXT_SETTINGS]: string | null }
>;

type SettingsColumns = Pick<WorkspacesTable, (typeof FLAG_SETTINGS)[keyof typeof FLAG_SETTINGS] | (typeof LIST_SETTINGS)[keyof typeof LIST_SETTINGS] | (typeof TEXT_SETTINGS)[keyof typeof TEXT_SETTINGS]>;

/** The columns an update writes: only the settings sent. */
export function settingsChanges(input: WorkspaceSettingsInput): Partial<SettingsColumns> {
  const changes: Partial<Record<string, unknown>> = {};
  for (const [attribute, column] of Object.entries(FLAG_SETTINGS)) {
    const value = input[attribute as keyof typeof FLAG_SETTINGS];
    if (value !== undefined) changes[column] = value ? 1 : 0;
  }
  for (const [attribute, column] of Object.entries(LIST_SETTINGS)) {
    const value = input[attribute as keyof typeof LIST_SETTINGS];
    if (value !== undefined) changes[column] = JSON.stringify(value);
  }
  for (const [attribute, column] of Object.entries(TEXT_SETTINGS)) {
    const value = input[attribute as keyof typeof TEXT_SETTINGS];
    if (value !== undefined) changes[column] = value;
  }
  return changes as Partial<SettingsColumns>;
}

/** Every settings column of a new workspace: what was sent, else the default. */
export function settingsOnCreate(input: WorkspaceSettingsInput): SettingsColumns {
  const defaults: Partial<WorkspaceSettingsInput> = { ...FLAG_DEFAULTS, 'trigger-prefixes': [], 'trigger-patterns': [], 'tag-names': [], 'source-name': null, 'source-url': null, 'terraform-version': null };
  return settingsChanges({ ...defaults, ...definedOnly(input) }) as SettingsColumns;
}

function definedOnly(input: WorkspaceSettingsInput): WorkspaceSettingsInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

/** The attributes as the API shows them. */
export function settingsAttributes(row: SettingsColumns): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [attribute, column] of Object.entries(FLAG_SETTINGS)) attributes[attribute] = row[column] === 1;
  for (const [attribute, column] of Object.entries(LIST_SETTINGS)) attributes[attribute] = JSON.parse(row[column]) as string[];
  for (const [attribute, column] of Object.entries(TEXT_SETTINGS)) attributes[attribute] = row[column];
  return attributes;
}
