/**
 * How a workspace's runs are carried out (HCP Terraform's `execution-mode`):
 * - `remote`: by Teamstage's built-in executor (the no-op, SIMULATED: src/runs/noop-executor.ts);
 * - `agent`: by a pipeline outside Teamstage, through the agent protocol (src/runs/agent-phases.service.ts);
 * - `local`: nowhere here: Terraform runs on the user's machine and Teamstage queues no runs.
 */
export const EXECUTION_MODES = ['remote', 'agent', 'local'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

export function isExecutionMode(value: unknown): value is ExecutionMode {
  return typeof value === 'string' && (EXECUTION_MODES as readonly string[]).includes(value);
}

/** A stored mode; anything unknown reads as the default, `remote`. */
export function executionModeOf(stored: string | null | undefined): ExecutionMode {
  return isExecutionMode(stored) ? stored : 'remote';
}
