// The rule lives in core (organizations, below workspaces, check their default execution mode with it).
export { EXECUTION_MODES, executionModeOf, isExecutionMode, type ExecutionMode } from '../core/execution-mode.js';
