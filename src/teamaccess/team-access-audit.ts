import type { Principal } from '../core/principal.js';
import type { TeamWorkspacesTable } from '../db/schema.js';
import { grantOfRow, type WorkspaceGrant } from '../access/workspace-access.js';
import { actorOf } from '../record/actor.js';
import { changedValues, type AuditEntry } from '../record/audit-trail.js';

/**
 * The audit trail's entries about team access to workspaces: who granted which team what on which workspace,
 * and who changed or took it away (record/audit-trail.ts), in the API's attribute names.
 */

function entry(principal: Principal, row: TeamWorkspacesTable, action: string, meta: Record<string, unknown>): AuditEntry {
  return {
    organizationName: row.organization_name,
    actor: actorOf(principal),
    resource: { id: row.id, type: 'team_workspace', action, meta: { 'team-id': row.team_id, 'workspace-id': row.workspace_id, ...meta } },
  };
}

const attributes = (grant: WorkspaceGrant): Record<string, unknown> => ({ ...grant });

export function teamAccessGranted(principal: Principal, row: TeamWorkspacesTable): AuditEntry {
  return entry(principal, row, 'create', { after: attributes(grantOfRow(row)) });
}

/** Undefined when nothing changed. */
export function teamAccessChanged(principal: Principal, before: TeamWorkspacesTable, after: TeamWorkspacesTable): AuditEntry | undefined {
  const changes = changedValues(attributes(grantOfRow(before)), attributes(grantOfRow(after)));
  return changes && entry(principal, after, 'update', changes);
}

export function teamAccessRevoked(principal: Principal, row: TeamWorkspacesTable): AuditEntry {
  return entry(principal, row, 'destroy', { before: attributes(grantOfRow(row)) });
}
