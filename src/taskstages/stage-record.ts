import type { TaskResultsTable } from '../db/schema.js';

type ResultFacts = Pick<TaskResultsTable, 'task_name' | 'status' | 'enforcement_level' | 'message' | 'required_approvals'>;

/**
 * How many distinct people must override a stage awaiting it: the most any of its failed mandatory
 * results asks for (their workspace tasks' `required-approvals`, copied at run creation), at least 1.
 */
export function requiredApprovals(results: readonly ResultFacts[]): number {
  const failing = results.filter((result) => result.enforcement_level === 'mandatory' && result.status === 'failed');
  return Math.max(1, ...failing.map((result) => Number(result.required_approvals) || 1));
}

/** Approvals given: one per distinct overrider (a person, or a team token, counts once). */
export function approvalsOf(overriders: readonly string[]): number {
  return new Set(overriders).size;
}

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
