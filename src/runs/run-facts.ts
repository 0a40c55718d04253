import type { TaskStageName } from '../db/schema.js';
import { executionModeOf } from '../workspaces/execution-mode.js';
import { runFacts } from './run-next-step.js';
import type { RunFacts } from './run-state-machine.js';
import type { RunRow } from './runs.repository.js';

/**
 * The state machine's facts of a stored run: its stages, and whether its plan has changes (which ends an
 * agent-mode run after its plan when it has none). One function, so the run document's actions, the run
 * actions and run progress decide from the same facts.
 */
export function runFactsOf(run: Pick<RunRow, 'plan_only' | 'execution_mode'>, stages: readonly { stage: TaskStageName }[], planHasChanges: boolean): RunFacts {
  return runFacts({ planOnly: run.plan_only === 1, agent: executionModeOf(run.execution_mode) === 'agent', planHasChanges }, stages);
}
