import type { Principal } from '../core/principal.js';
import type { TasksTable } from '../db/schema.js';
import { actorOf } from '../record/actor.js';
import { changedValues, type AuditEntry } from '../record/audit-trail.js';
import type { WorkspaceTask } from './workspace-task.js';

/**
 * The audit trail's entries about run tasks and their attachments to workspaces (record/audit-trail.ts),
 * in the API's attribute names. A run task's HMAC key never appears: only whether one is set, and that it
 * changed.
 */

function taskAttributes(task: TasksTable): Record<string, unknown> {
  return {
    name: task.name,
    url: task.url,
    description: task.description,
    category: task.category,
    enabled: task.enabled === 1,
    'hmac-key-set': task.hmac_key !== null,
  };
}

function taskEntry(principal: Principal, task: TasksTable, action: string, meta: Record<string, unknown>): AuditEntry {
  return { organizationName: task.organization_name, actor: actorOf(principal), resource: { id: task.id, type: 'task', action, meta } };
}

export function taskCreated(principal: Principal, task: TasksTable): AuditEntry {
  return taskEntry(principal, task, 'create', { after: taskAttributes(task) });
}

/** Undefined when nothing changed. */
export function taskUpdated(principal: Principal, before: TasksTable, after: TasksTable): AuditEntry | undefined {
  const changes = changedValues(taskAttributes(before), taskAttributes(after));
  const keyChanged = before.hmac_key !== after.hmac_key;
  if (!changes && !keyChanged) return undefined;
  return taskEntry(principal, after, 'update', { name: after.name, ...(changes ?? { before: {}, after: {} }), ...(keyChanged ? { 'hmac-key-changed': true } : {}) });
}

export function taskDeleted(principal: Principal, task: TasksTable): AuditEntry {
  return taskEntry(principal, task, 'destroy', { before: taskAttributes(task) });
}

function attachmentAttributes(attachment: WorkspaceTask): Record<string, unknown> {
  return {
    'enforcement-level': attachment.enforcement_level,
    stages: attachment.stages,
    'required-approvals': attachment.required_approvals,
  };
}

function attachmentEntry(principal: Principal, organizationName: string, attachment: WorkspaceTask, action: string, meta: Record<string, unknown>): AuditEntry {
  return {
    organizationName,
    actor: actorOf(principal),
    resource: { id: attachment.id, type: 'workspace_task', action, meta: { 'workspace-id': attachment.workspace_id, 'task-id': attachment.task_id, ...meta } },
  };
}

/** A run task attached to a workspace. */
export function workspaceTaskCreated(principal: Principal, organizationName: string, attachment: WorkspaceTask): AuditEntry {
  return attachmentEntry(principal, organizationName, attachment, 'create', { after: attachmentAttributes(attachment) });
}

/** Undefined when nothing changed. */
export function workspaceTaskUpdated(principal: Principal, organizationName: string, before: WorkspaceTask, after: WorkspaceTask): AuditEntry | undefined {
  const changes = changedValues(attachmentAttributes(before), attachmentAttributes(after));
  return changes && attachmentEntry(principal, organizationName, after, 'update', changes);
}

/** A run task detached from a workspace. */
export function workspaceTaskDeleted(principal: Principal, organizationName: string, attachment: WorkspaceTask): AuditEntry {
  return attachmentEntry(principal, organizationName, attachment, 'destroy', { before: attachmentAttributes(attachment) });
}
