import { Errors } from '../core/errors.js';
import { RUN_STATUSES, type RunStatus } from '../shared/run-statuses.js';
import { RUN_OPERATIONS, type RunOperation } from './run-options.js';

/**
 * HCP Terraform's filters and searches of a workspace's run list (`GET /workspaces/:id/runs`), as go-tfe
 * sends them. Each given filter narrows the list; comma-separated values are any-of.
 *
 * - `filter[status]`, `filter[operation]`, `filter[source]`: exact values (unknown ones: 422).
 * - `filter[status_group]`: `non_final`, `final` or `discardable` (HCP's groups).
 * - `filter[commit]`, `search[commit]`, `filter[agent_pool_names]`: Teamstage has no VCS and no agent pools, so
 *   a non-empty value matches no run.
 * - `search[user]`: the creator's name (a username; HCP matches the VCS username, which runs here never have).
 * - `search[basic]`: a case-insensitive part of the run id, its message or its creator's name.
 */
export type StatusGroup = 'non_final' | 'final' | 'discardable';
const STATUS_GROUPS: readonly StatusGroup[] = ['non_final', 'final', 'discardable'];
/** Where runs come from, in HCP's words; every run here is made through the API (or by an upload through it). */
export const RUN_SOURCES = ['tfe-api', 'tfe-ui', 'tfe-configuration-version', 'terraform', 'terraform+cloud', 'tfe-infrastructure-lifecycle', 'tfe-module'] as const;

export interface RunListFilter {
  statuses?: RunStatus[];
  operations?: RunOperation[];
  sources?: string[];
  statusGroup?: StatusGroup;
  /** A filter no run can meet (a commit or an agent pool): the list is empty. */
  matchesNothing: boolean;
  user?: string;
  basic?: string;
}

function listOf(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const items = value.split(',').map((item) => item.trim()).filter(Boolean);
  return items.length > 0 ? items : undefined;
}

function checked<T extends string>(parameter: string, values: string[] | undefined, allowed: readonly T[]): T[] | undefined {
  if (!values) return undefined;
  const unknown = values.find((value) => !(allowed as readonly string[]).includes(value));
  if (unknown !== undefined) throw Errors.invalidRunListFilter(parameter, unknown, allowed);
  return values as T[];
}

/** The filter of a run list request's query (raw or percent-encoded brackets are decoded before this). */
export function parseRunListFilter(query: Record<string, unknown>): RunListFilter {
  const group = checked('filter[status_group]', listOf(query['filter[status_group]']), STATUS_GROUPS);
  if (group && group.length > 1) throw Errors.invalidRunListFilter('filter[status_group]', group.join(','), STATUS_GROUPS);
  const search = (name: string) => (typeof query[name] === 'string' && (query[name] as string).trim() !== '' ? (query[name] as string).trim() : undefined);
  return {
    statuses: checked('filter[status]', listOf(query['filter[status]']), RUN_STATUSES),
    operations: checked('filter[operation]', listOf(query['filter[operation]']), RUN_OPERATIONS),
    sources: checked('filter[source]', listOf(query['filter[source]']), RUN_SOURCES),
    statusGroup: group?.[0],
    matchesNothing: [query['filter[commit]'], query['search[commit]'], query['filter[agent_pool_names]']].some((value) => listOf(value) !== undefined),
    user: search('search[user]'),
    basic: search('search[basic]'),
  };
}
