/**
 * The resource types the organization audit trail records (docs/audit-trail.md): one list, read by the trail's
 * `filter[type]` (src/record/audit-trail-filters.ts) and offered by the console's type filter (src/web/audit/).
 */
export const AUDIT_RESOURCE_TYPES = [
  'team', 'organization_membership', 'authentication_token', 'task', 'workspace_task', 'run', 'task_stage',
  'team_workspace', 'team_project',
] as const;

export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];
