import type { Actor } from './actor.js';
import type { AuditEntry } from './audit-trail.js';

/**
 * The audit trail's entries about run decisions (record/audit-trail.ts), written where the run event of the
 * same decision is, in its transaction: apply (HCP's confirm), discard and cancel of a run, and each override
 * of a task stage, with the comment the person gave; and each of those decisions refused (issue 34).
 */
export function runDecided(
  organizationName: string,
  actor: Actor,
  run: { id: string; workspaceId: string; from: string; to: string },
  /** force-cancel and force-execute: the run was moved by that action (force-execute discards or cancels the runs ahead). */
  action: 'apply' | 'discard' | 'cancel' | 'force-cancel' | 'force-execute',
  comment: string | null,
): AuditEntry {
  return {
    organizationName,
    actor,
    resource: { id: run.id, type: 'run', action, meta: { 'workspace-id': run.workspaceId, before: { status: run.from }, after: { status: run.to }, comment } },
  };
}

export function stageOverridden(
  organizationName: string,
  actor: Actor,
  stage: { id: string; runId: string; stage: string; approvals: number; required: number; released: boolean },
  comment: string | null,
): AuditEntry {
  return {
    organizationName,
    actor,
    resource: {
      id: stage.id,
      type: 'task_stage',
      action: 'override',
      meta: { 'run-id': stage.runId, stage: stage.stage, approvals: stage.approvals, 'required-approvals': stage.required, released: stage.released, comment },
    },
  };
}

/**
 * A decision refused: who tried what (`action` on the resource) and why it was refused (the answer's status and
 * detail), written in a transaction of its own since the attempt changed nothing. The action is `<action>_refused`
 * (`override_refused`, `apply_refused`, `discard_refused`, `cancel_refused`), so a security team filters them.
 */
export function decisionRefused(
  organizationName: string,
  actor: Actor,
  attempt: { id: string; type: 'run' | 'task_stage'; action: string; status: number; reason: string; meta: Record<string, unknown> },
): AuditEntry {
  return {
    organizationName,
    actor,
    resource: {
      id: attempt.id,
      type: attempt.type,
      action: `${attempt.action}_refused`,
      meta: { ...attempt.meta, refused: { status: attempt.status, reason: attempt.reason } },
    },
  };
}
