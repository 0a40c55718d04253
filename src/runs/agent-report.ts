import { Errors } from '../core/errors.js';
import type { PhasesTable } from '../db/schema.js';

/** The resource counts of an apply, as the pipeline saw them (`terraform apply`'s "Apply complete!" line). */
export interface ApplyCounts {
  'resource-additions': number;
  'resource-changes': number;
  'resource-destructions': number;
  'resource-imports': number;
}

/**
 * What a pipeline reports at the end of a claimed phase (agent mode). A finished apply may carry its
 * counts (docs/agent-protocol.md); without them they are read from the apply's uploaded log.
 */
export type AgentReport = { status: 'finished'; counts?: ApplyCounts } | { status: 'errored'; message: string };

const MAX_MESSAGE = 10_000;
export const COUNT_KEYS = ['resource-additions', 'resource-changes', 'resource-destructions', 'resource-imports'] as const;

/**
 * The report from the request's plain JSON body (`{"status":"finished"}`, optionally with the apply's
 * `resource-additions`, `resource-changes`, `resource-destructions`, `resource-imports`, or
 * `{"status":"errored","message":"…"}`): 422 otherwise.
 */
export function parseAgentReport(body: Record<string, unknown>): AgentReport {
  if (body.status === 'finished') {
    const given = COUNT_KEYS.filter((key) => body[key] !== undefined && body[key] !== null);
    if (given.length === 0) return { status: 'finished' };
    const counts = {} as ApplyCounts;
    for (const key of COUNT_KEYS) {
      const value = body[key] ?? 0;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1_000_000_000) {
        throw Errors.invalidReport(`${key} must be a whole number of resources`);
      }
      counts[key] = value;
    }
    return { status: 'finished', counts };
  }
  if (body.status === 'errored') {
    if (body.message !== undefined && body.message !== null && typeof body.message !== 'string') throw Errors.invalidReport('message must be a string');
    const message = typeof body.message === 'string' && body.message.trim() !== '' ? body.message : 'the pipeline reported the phase errored';
    if (message.length > MAX_MESSAGE) throw Errors.invalidReport(`message must be at most ${MAX_MESSAGE} characters`);
    return { status: 'errored', message };
  }
  throw Errors.invalidReport('status must be "finished" or "errored"');
}

/** As stored on the plan or apply: one spelling per report, so a repeated report compares equal. */
export function storedReport(report: AgentReport): string {
  if (report.status === 'errored') return JSON.stringify({ status: 'errored', message: report.message });
  return JSON.stringify(report.counts ? { status: 'finished', ...report.counts } : { status: 'finished' });
}

/**
 * Terraform's and OpenTofu's last line of an apply: `Apply complete! Resources: 1 imported, 2 added, 0 changed,
 * 1 destroyed.` (the import count only when there were imports). Undefined when the log has no such line.
 */
export function countsFromApplyLog(log: string): ApplyCounts | undefined {
  // eslint-disable-next-line no-control-regex
  const plain = log.replace(/\u001b\[[0-9;]*m/g, '');
  const match = /Apply complete! Resources: (?:(\d+) imported, )?(\d+) added, (\d+) changed, (\d+) destroyed/.exec(plain);
  if (!match) return undefined;
  return {
    'resource-imports': Number(match[1] ?? 0),
    'resource-additions': Number(match[2]),
    'resource-changes': Number(match[3]),
    'resource-destructions': Number(match[4]),
  };
}

/** What a finished apply's report writes on the apply: its counts, when known. */
export function reportedCounts(kind: 'plan' | 'apply', report: AgentReport, log?: string): Partial<Pick<PhasesTable, 'resource_additions' | 'resource_changes' | 'resource_destructions' | 'resource_imports'>> {
  if (kind !== 'apply' || report.status !== 'finished') return {};
  const counts = report.counts ?? (log === undefined ? undefined : countsFromApplyLog(log));
  if (!counts) return {};
  return {
    resource_additions: counts['resource-additions'],
    resource_changes: counts['resource-changes'],
    resource_destructions: counts['resource-destructions'],
    resource_imports: counts['resource-imports'],
  };
}
