import type { Resource } from '../api/jsonapi-types';
import { TASK_STAGE_ORDER, type TaskStageName } from '../../shared/stage-order.js';
import { isTerminalRunStatus } from '../../shared/run-statuses.js';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';
import type { ResultStatus, StageStatus } from '../../shared/task-stage-statuses.js';

/**
 * Runs, plans, applies, task stages, results and outcomes as /api/v2 serializes them
 * (src/http/serializers/runs.serializer.ts, phases.serializer.ts, task-stages.serializer.ts).
 * Only the fields the console reads are typed.
 */
export type Timestamps = Record<string, string | undefined>;

export interface RunAttributes {
  status: string;
  'status-timestamps': Timestamps;
  message: string | null;
  'plan-only': boolean;
  'auto-apply': boolean;
  'is-destroy': boolean;
  'has-changes': boolean;
  'created-at': string;
  /** Runs ahead of this one in its workspace's queue (a pending run that takes turns); 0 otherwise. */
  'position-in-queue'?: number;
  /** Why an errored run errored (the failed stage and its results, the pipeline's report, the executor's message). */
  'error-message'?: string | null;
  actions: { 'is-cancelable': boolean; 'is-confirmable': boolean; 'is-discardable': boolean };
  permissions: { 'can-apply': boolean; 'can-cancel': boolean; 'can-discard': boolean };
}

export interface PhaseAttributes {
  status: string;
  'status-timestamps': Timestamps;
  'has-changes': boolean;
  'resource-additions': number;
  'resource-changes': number;
  'resource-destructions': number;
  'resource-imports'?: number;
  /** Where the phase's log is read, once the run has one (real plans, agent mode); null otherwise. */
  'log-read-url': string | null;
}

/** The stage names in run order (src/shared/stage-order.ts, the server's own list). */
export const STAGE_NAMES = TASK_STAGE_ORDER;
export type StageName = TaskStageName;

export interface TaskStageAttributes {
  status: StageStatus;
  stage: StageName;
  'status-timestamps': Timestamps;
  'created-at': string;
  'updated-at': string;
  permissions: { 'can-override': boolean; 'can-override-tasks'?: boolean };
  actions: { 'is-overridable': boolean };
  /** Teamstage's: how many distinct people must override, how many have, and who did (with their comment). */
  'required-approvals'?: number;
  approvals?: number;
  overrides?: { 'overridden-by': string; overrider?: string; comment: string | null; 'created-at': string }[];
}

export interface TaskResultAttributes {
  message: string | null;
  status: ResultStatus;
  'status-timestamps': Timestamps;
  url: string | null;
  'created-at': string;
  'updated-at': string;
  'task-id': string;
  'task-name': string;
  'task-url': string;
  stage: string;
  'workspace-task-enforcement-level': EnforcementLevel;
}

/** One tag of an outcome: `{ label, level }` grouped by a name such as "Severity". */
export interface OutcomeTag {
  label: string;
  level?: string | null;
}

export interface OutcomeAttributes {
  'outcome-id': string;
  description: string;
  body: string | null;
  url: string | null;
  tags: Record<string, OutcomeTag[]> | unknown;
  'created-at': string;
}

export type Run = Resource<RunAttributes>;
export type Phase = Resource<PhaseAttributes>;
export type TaskStage = Resource<TaskStageAttributes>;
export type TaskResult = Resource<TaskResultAttributes>;
export type Outcome = Resource<OutcomeAttributes>;

/** Statuses where the run waits for a person (confirm, override, discard), not for the server. */
export function awaitsPerson(status: string): boolean {
  return status === 'planned' || status === 'policy_checked' || status.endsWith('_awaiting_decision');
}

/**
 * Whether the run can still change by itself: not in a terminal status, and not `applied` with no
 * post-apply stage to follow (`applied` ends such a run).
 */
export function isRunSettled(status: string, stages: readonly StageName[]): boolean {
  if (isTerminalRunStatus(status)) return true;
  return status === 'applied' && !stages.includes('post_apply');
}

/** Whether the run is final: nothing it has not reached yet will run. */
export function isRunFinal(status: string): boolean {
  return isTerminalRunStatus(status);
}

/** The reason an errored run gives, if the server gave one. */
export function errorReason(run: Run): string | null {
  const reason = run.attributes['error-message'];
  return typeof reason === 'string' && reason.trim() ? reason : null;
}

