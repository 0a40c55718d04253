import type { TaskResultsTable } from '../db/schema.js';

type ResultFacts = Pick<TaskResultsTable, 'task_name' | 'status' | 'enforcement_level' | 'message'>;

/**
 * The results of a stage in words, for the record: `'plan-guard' (mandatory) failed: 2 replaces; 'cost'
 * (advisory) passed`. `onlyFailing`: only the mandatory results that did not pass (why a stage failed a run).
 */
export function resultsSummary(results: readonly ResultFacts[], onlyFailing: boolean): string {
  const shown = onlyFailing ? results.filter((result) => result.enforcement_level === 'mandatory' && result.status !== 'passed') : results;
  if (shown.length === 0) return onlyFailing ? 'no mandatory task passed' : 'no tasks';
  return shown
    .map((result) => `'${result.task_name}' (${result.enforcement_level}) ${result.status}${result.message ? `: ${result.message}` : ''}`)
    .join('; ');
}
