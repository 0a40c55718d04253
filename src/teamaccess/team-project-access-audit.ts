import type { Principal } from '../core/principal.js';
import type { TeamProjectsTable } from '../db/schema.js';
import { projectGrantOfRow, type ProjectGrant } from '../access/project-access.js';
import { actorOf } from '../record/actor.js';
import { changedValues, type AuditEntry } from '../record/audit-trail.js';

/** The audit trail's entries about team access to projects: who granted which team what on which project, and who changed or took it away. */

function entry(principal: Principal, row: TeamProjectsTable, action: string, meta: Record<string, unknown>): AuditEntry {
  return {
    organizationName: row.organization_name,
    actor: actorOf(principal),
    resource: { id: row.id, type: 'team_project', action, meta: { 'team-id': row.team_id, 'project-id': row.project_id, ...meta } },
  };
}

const attributes = (grant: ProjectGrant): Record<string, unknown> => ({
  access: grant.access,
  ...Object.fromEntries(Object.entries(grant.project).map(([key, value]) => [`project-access.${key}`, value])),
  ...Object.fromEntries(Object.entries(grant.workspace).map(([key, value]) => [`workspace-access.${key}`, value])),
});

export function teamProjectAccessGranted(principal: Principal, row: TeamProjectsTable): AuditEntry {
  return entry(principal, row, 'create', { after: attributes(projectGrantOfRow(row)) });
}

/** Undefined when nothing changed. */
export function teamProjectAccessChanged(principal: Principal, before: TeamProjectsTable, after: TeamProjectsTable): AuditEntry | undefined {
  const changes = changedValues(attributes(projectGrantOfRow(before)), attributes(projectGrantOfRow(after)));
  return changes && entry(principal, after, 'update', changes);
}

export function teamProjectAccessRevoked(principal: Principal, row: TeamProjectsTable): AuditEntry {
  return entry(principal, row, 'destroy', { before: attributes(projectGrantOfRow(row)) });
}
