/**
 * A project's own rules (HCP's): its name, its auto-destroy duration and its default execution mode. Pure.
 */

export const DEFAULT_PROJECT_NAME = 'Default Project';

/** HCP: up to 40 characters of letters, numbers, inner spaces, `-` and `_`; at least 3. */
const PROJECT_NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9 _-]{1,38})[A-Za-z0-9_-]$/;

/** Why the name is invalid (HCP's words, which go-tfe's tests look for), or undefined. */
export function projectNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !PROJECT_NAME.test(name)) {
    return 'Name may only contain letters, numbers, inner spaces, hyphens and underscores, and be 3 to 40 characters long';
  }
  return undefined;
}

/** HCP's auto-destroy-activity-duration: up to 4 digits and a unit, `d` or `h` (`14d`, `12h`). */
export function isAutoDestroyDuration(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{1,4}[dh]$/.test(value);
}

export const PROJECT_EXECUTION_MODES = ['remote', 'local', 'agent'] as const;

export interface ProjectExecutionInput {
  'default-execution-mode'?: unknown;
  'default-agent-pool-id'?: unknown;
  'setting-overwrites'?: { 'default-execution-mode'?: unknown; 'default-agent-pool'?: unknown } | null;
}

/** A project's own execution settings: null mode follows the organization's default (HCP's setting-overwrites false). */
export interface ProjectExecution {
  mode: string | null;
  agentPoolId: string | null;
}

/**
 * The execution settings after a create (`current` undefined) or update, or HCP's sentence for what is wrong.
 * Naming a mode overwrites the organization's default unless setting-overwrites says false; an agent pool goes
 * only with mode `agent`, which needs one. Whether the pool exists is the service's to check.
 */
export function decideProjectExecution(
  input: ProjectExecutionInput,
  current: ProjectExecution | undefined,
  organizationMode: string,
): { execution?: ProjectExecution; problem?: { attribute: string; detail: string } } {
  const overwrites = input['setting-overwrites'] ?? {};
  const modeOverwrite = overwrites['default-execution-mode'];
  const poolOverwrite = overwrites['default-agent-pool'];
  if (typeof modeOverwrite === 'boolean' && typeof poolOverwrite === 'boolean' && modeOverwrite !== poolOverwrite) {
    return { problem: { attribute: 'setting-overwrites', detail: 'If agent-pool and execution-mode are both included in setting-overwrites, their values must be the same.' } };
  }
  const sentMode = input['default-execution-mode'];
  if (sentMode !== undefined && sentMode !== null && !(PROJECT_EXECUTION_MODES as readonly unknown[]).includes(sentMode)) {
    return { problem: { attribute: 'default-execution-mode', detail: `default-execution-mode must be one of ${PROJECT_EXECUTION_MODES.join(', ')}` } };
  }
  const sentPool = input['default-agent-pool-id'];
  if (sentPool !== undefined && sentPool !== null && typeof sentPool !== 'string') {
    return { problem: { attribute: 'default-agent-pool-id', detail: 'default-agent-pool-id must be a string' } };
  }
  let mode: string | null = current?.mode ?? null;
  if (modeOverwrite === false) mode = null;
  else if (typeof sentMode === 'string') mode = sentMode;
  const effective = mode ?? organizationMode;
  let agentPoolId: string | null = mode === null ? null : (typeof sentPool === 'string' ? sentPool : sentPool === null ? null : current?.agentPoolId ?? null);
  if (typeof sentPool === 'string' && sentPool !== '' && effective !== 'agent') {
    return { problem: { attribute: 'default-agent-pool-id', detail: "default-agent-pool-id must not be specified unless using 'agent' execution mode" } };
  }
  if (effective !== 'agent') agentPoolId = null;
  if (mode === 'agent' && !agentPoolId) {
    return { problem: { attribute: 'default-agent-pool-id', detail: "default-agent-pool-id must be specified when using 'agent' execution mode" } };
  }
  return { execution: { mode, agentPoolId } };
}
