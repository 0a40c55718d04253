/**
 * THE OVERRIDE: whether a person may release a task stage that awaits one, and what their override does.
 * One pure function of plain data (`decideOverride`), dependency-free so that the server's access table,
 * the task stage runner and the stage documents all ask the same rule (issue 26: "the override's rules in
 * one function"); the console and the pipeline client read its answers from the stage document
 * (`permissions`, `actions.is-overridable`, `required-approvals`, `approvals`).
 *
 * The rule in words (CONTRACT §8, issue 27):
 * - Who: a person (never the organization token or a token it minted) who may read the run, and who owns the
 *   organization or holds the right for every kind of thing that holds the stage: `manage-run-tasks` for a
 *   failed mandatory run task, `manage-policy-overrides` for a failed mandatory policy in an overridable set,
 *   both when both failed. Before anything failed, the rights for what the stage holds (run tasks when it
 *   holds nothing). Someone who may not read the run does not learn the stage exists (hidden: 404); a reader
 *   without the rights is refused (403).
 * - When: only from `awaiting_override` (else the override conflicts with the stage's status: 409).
 * - How many: the stage needs the overrides of as many distinct people as the most that any of its failed
 *   mandatory run tasks asks for (their workspace tasks' `required-approvals`) and its workspace asks for
 *   (`required-approvals` of the workspace), at least 1. One overrider counts once: a second override by the
 *   same one conflicts (409).
 * - Approvals are people (issue 34): where a stage needs more than one approval, only a user's own token counts:
 *   a team token (whoever minted it, whoever holds it) and the site token are not a person, so they are refused
 *   (403) there; where one approval is enough they may still override. A person counts once whatever token they
 *   use (every user token of theirs is `user:<id>`). Where more than one is needed and the workspace's
 *   `prevent-self-approval` is on (its default), the run's author may not approve their own run (403).
 * - Counting is re-evaluated: an earlier approval counts only if its overrider could still give it now (still
 *   in the organization, still reading the run, still holding the rights for what holds the stage, still a
 *   person where that matters, not the run's author where that is refused).
 * - What it does: the override is recorded; with enough distinct approvals the stage is released (it runs
 *   again, then passes, and the policy evaluations that held it become `overridden`); with fewer it keeps
 *   awaiting the others.
 */
import type { EnforcementLevel } from './enforcement-levels.js';
import type { PolicyHold } from './policy-evaluation-statuses.js';
import { AWAITING_OVERRIDE, type ResultStatus, type StageStatus } from './task-stage-statuses.js';

/** What holds a stage: a mandatory run task that failed, a mandatory policy that failed in an overridable set. */
export interface StageHolds {
  tasks: boolean;
  policies: boolean;
}

/** A stage of run task results only, as every stage was before policies (issue 29). */
export const TASKS_ONLY: StageHolds = { tasks: true, policies: false };

/** The caller as the rule sees it (built from their standing in the run's organization: access/task-stage-permissions.ts). */
export interface OverrideCaller {
  /** Not the organization token nor a token it minted. */
  actsAsPerson: boolean;
  /** A user's own token: the only caller the rule counts among more than one approver (a team or site token is no person). */
  isUser: boolean;
  /** May read the run (and so see its stages). */
  readsRuns: boolean;
  isOwner: boolean;
  manageRunTasks: boolean;
  managePolicyOverrides: boolean;
  /** Who counts once: `user:<id>`, `team:<id>`, `site-admin`. */
  overrider: string;
}

/** A run task result of the stage, as the rule needs it. */
export interface OverrideResultFacts {
  status: ResultStatus;
  enforcementLevel: EnforcementLevel;
  /** Its workspace task's `required-approvals` when the run was created. */
  requiredApprovals: number;
}

/** The stage as the rule needs it, read under the stage's lock when the override is decided. */
export interface OverrideStageFacts {
  status: StageStatus;
  results: readonly OverrideResultFacts[];
  /** The `hold` of each of its policy evaluations (`none`, `override`, `fail`, `error`). */
  policyHolds: readonly PolicyHold[];
  /** The workspace's `required-approvals` (1 when it asks for nothing more than the seed). */
  workspaceRequiredApprovals: number;
  /** Who overrode it so far, oldest first, each with their standing as it is now (re-evaluated whenever counted). */
  overriders: readonly PriorApproval[];
  /** The `overrider` key of the run's author (`user:<id>`), null when no user created it. */
  runAuthor: string | null;
  /** The workspace's `prevent-self-approval`: the author may not approve their own run where more than one approval is needed. */
  preventSelfApproval: boolean;
}

/** The caller as the rule sees them now, without their key. */
export type ApproverStanding = Omit<OverrideCaller, 'overrider'>;

/** An override given earlier, and its overrider's standing now (null: no longer in the organization, or gone). */
export interface PriorApproval {
  overrider: string;
  now: ApproverStanding | null;
}

/** Why the rule refuses a caller who sees the stage (403): a right, not being a person, or their own run. */
export type OverrideRefusal = 'rights' | 'not-a-person' | 'own-run';

/** What every stage document says about overriding it (HCP's `permissions` and `actions`, Teamstage's "n of N"). */
export interface TaskStagePermissions {
  'can-override-policy': boolean;
  'can-override-tasks': boolean;
  'can-override': boolean;
}

export interface OverrideStanding {
  holds: StageHolds;
  permissions: TaskStagePermissions;
  /** `actions.is-overridable`: the stage waits for a person. */
  isOverridable: boolean;
  /** Distinct people whose overrides it needs, and has. */
  required: number;
  approvals: number;
}

export type OverrideDecision =
  /** The caller may not read the run: 404, as for a stage that does not exist. */
  | { kind: 'hidden' }
  /** The caller sees the stage but lacks a right it needs: 403. */
  | { kind: 'refused'; reason: OverrideRefusal; required: number }
  /** The stage does not await an override: 409. */
  | { kind: 'not-awaiting'; status: string }
  /** This caller already counted: 409, it needs another person. */
  | { kind: 'already-approved' }
  /** The override is recorded; `releases` when it brings the distinct approvals to the number required. */
  | { kind: 'approved'; approvals: number; required: number; releases: boolean; permissions: TaskStagePermissions };

/** Empty facts: a stage that holds nothing yet (its permissions are those of a stage of run tasks). */
export const STAGE_HOLDING_NOTHING: OverrideStageFacts = {
  status: 'pending', results: [], policyHolds: [], workspaceRequiredApprovals: 1, overriders: [], runAuthor: null, preventSelfApproval: true,
};

/** The most distinct approvers a workspace or a workspace task may require. */
export const MAX_REQUIRED_APPROVALS = 10;

/** A `required-approvals` setting (of a workspace or a workspace task): a whole number from 1 to the most. */
export function isRequiredApprovals(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_REQUIRED_APPROVALS;
}

const failedMandatory = (result: OverrideResultFacts) => result.enforcementLevel === 'mandatory' && result.status === 'failed';

/**
 * What holds a stage, which decides who may override it: awaiting an override, the failed mandatory run tasks
 * and the policy evaluations that asked for one; before that, whatever the stage holds.
 */
export function stageHolds(stage: OverrideStageFacts): StageHolds {
  if (isOverridable(stage.status)) {
    return { tasks: stage.results.some(failedMandatory), policies: stage.policyHolds.includes('override') };
  }
  return { tasks: stage.results.length > 0, policies: stage.policyHolds.length > 0 };
}

/** Who may override a stage held by `holds`, by their rights alone (see the rule above). */
export function overridePermissions(caller: ApproverStanding, holds: StageHolds = TASKS_ONLY): TaskStagePermissions {
  const person = caller.actsAsPerson && caller.readsRuns;
  const overrideTasks = person && (caller.isOwner || caller.manageRunTasks);
  const overridePolicy = person && (caller.isOwner || caller.managePolicyOverrides);
  const needed = holds.tasks || holds.policies ? holds : TASKS_ONLY;
  return {
    'can-override-policy': overridePolicy,
    'can-override-tasks': overrideTasks,
    'can-override': (!needed.tasks || overrideTasks) && (!needed.policies || overridePolicy),
  };
}

/** Distinct people whose overrides the stage needs: the most its failed mandatory tasks and its workspace ask for, at least 1. */
export function requiredApprovals(stage: Pick<OverrideStageFacts, 'results' | 'workspaceRequiredApprovals'>): number {
  const counts = stage.results.filter(failedMandatory).map((result) => wholeOrOne(result.requiredApprovals));
  return Math.max(1, wholeOrOne(stage.workspaceRequiredApprovals), ...counts);
}

/**
 * Why `caller` may not give an approval that counts toward `required`, or null when they may: the rights for
 * what holds the stage; where more than one approval is needed, being a person and (if the workspace says so)
 * not the run's author.
 */
export function refusalOf(caller: OverrideCaller, stage: OverrideStageFacts, holds: StageHolds, required: number): OverrideRefusal | null {
  if (!overridePermissions(caller, holds)['can-override']) return 'rights';
  if (required <= 1) return null;
  if (!caller.isUser) return 'not-a-person';
  if (stage.preventSelfApproval && stage.runAuthor !== null && caller.overrider === stage.runAuthor) return 'own-run';
  return null;
}

/**
 * Approvals that count now: while the stage awaits, one per distinct overrider who could still give theirs
 * (re-evaluated, not remembered). Once released (or closed), the stage keeps the count it had: what happens to
 * its approvers later does not rewrite history.
 */
export function countedApprovals(stage: OverrideStageFacts): number {
  if (!isOverridable(stage.status)) return new Set(stage.overriders.map((prior) => prior.overrider)).size;
  const holds = stageHolds(stage);
  const required = requiredApprovals(stage);
  const counted = new Set<string>();
  for (const { overrider, now } of stage.overriders) {
    if (now && refusalOf({ ...now, overrider }, stage, holds, required) === null) counted.add(overrider);
  }
  return counted.size;
}

/** `actions.is-overridable`: the stage waits for a person to override it (or to discard its run). */
export function isOverridable(status: string): boolean {
  return status === AWAITING_OVERRIDE;
}

/** What the stage document shows this caller about overriding it (`can-override`: an approval of theirs would count). */
export function overrideStanding(caller: OverrideCaller, stage: OverrideStageFacts): OverrideStanding {
  const holds = stageHolds(stage);
  const required = requiredApprovals(stage);
  const permissions = overridePermissions(caller, holds);
  return {
    holds,
    permissions: { ...permissions, 'can-override': refusalOf(caller, stage, holds, required) === null },
    isOverridable: isOverridable(stage.status),
    required,
    approvals: countedApprovals(stage),
  };
}

/** THE decision on one override by `caller` of a stage as it is now; the checks in the order their answers rank. */
export function decideOverride(caller: OverrideCaller, stage: OverrideStageFacts): OverrideDecision {
  const standing = overrideStanding(caller, stage);
  const { holds, required } = standing;
  if (!caller.readsRuns) return { kind: 'hidden' };
  if (refusalOf(caller, stage, holds, required) === 'rights') return { kind: 'refused', reason: 'rights', required };
  if (!standing.isOverridable) return { kind: 'not-awaiting', status: stage.status };
  const refusal = refusalOf(caller, stage, holds, required);
  if (refusal !== null) return { kind: 'refused', reason: refusal, required };
  if (stage.overriders.some((prior) => prior.overrider === caller.overrider)) return { kind: 'already-approved' };
  const approvals = standing.approvals + 1;
  return { kind: 'approved', approvals, required, releases: approvals >= required, permissions: standing.permissions };
}

function wholeOrOne(value: number): number {
  const count = Number(value);
  return Number.isInteger(count) && count >= 1 ? count : 1;
}
