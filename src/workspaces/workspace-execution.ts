import { Errors } from '../core/errors.js';
import { EXECUTION_MODES, isExecutionMode, type ExecutionMode } from '../core/execution-mode.js';

/** What a create or update says about how runs are carried out (HCP's three ways of saying it). */
export interface ExecutionInput {
  'execution-mode'?: string;
  /** HCP's older switch: false is `local`, true `remote`; `execution-mode` wins when both are sent. */
  operations?: boolean;
  /** HCP: false makes the workspace follow its organization's default execution mode. */
  'setting-overwrites'?: { 'execution-mode'?: boolean; 'agent-pool'?: boolean };
}

export interface ExecutionDecision {
  mode: ExecutionMode;
  /** false: the mode is the organization's default and follows it. */
  overwritten: boolean;
}

/**
 * The workspace's execution mode and whether it is its own (HCP's setting-overwrites), or undefined when the
 * input says nothing about it (an update that leaves it as it is). A create that says nothing follows the
 * organization's default.
 */
export function decideExecution(input: ExecutionInput, organizationDefault: string, isCreate: boolean): ExecutionDecision | undefined {
  const inherit = input['setting-overwrites']?.['execution-mode'] === false;
  if (inherit) return { mode: defaultOf(organizationDefault), overwritten: false };
  const sent = input['execution-mode'];
  if (sent !== undefined) {
    if (!isExecutionMode(sent)) throw Errors.invalidExecutionMode(EXECUTION_MODES);
    return { mode: sent, overwritten: true };
  }
  if (input.operations !== undefined) return { mode: input.operations ? 'remote' : 'local', overwritten: true };
  if (input['setting-overwrites']?.['execution-mode'] === true) return isCreate ? { mode: defaultOf(organizationDefault), overwritten: true } : undefined;
  return isCreate ? { mode: defaultOf(organizationDefault), overwritten: false } : undefined;
}

function defaultOf(stored: string): ExecutionMode {
  return isExecutionMode(stored) ? stored : 'remote';
}

/** HCP's `auto-destroy-at`: an ISO 8601 time, or null to clear it; stored as given once checked. */
export function autoDestroyAtInput(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) throw Errors.invalidAutoDestroyAt();
  return new Date(value).toISOString();
}
