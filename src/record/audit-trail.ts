import { randomUUID } from 'node:crypto';
import type { AuditTrailTable } from '../db/schema.js';
import { nowIso } from '../core/clock.js';
import type { Actor } from './actor.js';
import type { AuditResourceType } from '../shared/audit-resource-types.js';
import { currentRequestId } from './request-scope.js';

/**
 * HCP's organization audit trail, one entry per change: who (the actor of record/actor.ts), what (the resource,
 * its type and the action) and how (`meta`: before and after where it matters). Written by every domain that
 * changes teams, their access, memberships, tokens, run tasks, workspace tasks, or decides about a run, through
 * AuditTrailRecorder in the transaction of the change itself (audit-trail-recorder.ts).
 *
 * Resource types and actions (docs/audit-trail.md, "The organization audit trail"):
 * - `team`: `create`, `update`, `destroy`, `add_members`, `remove_members`
 * - `organization_membership`: `invite`, `accept`, `destroy`
 * - `authentication_token` (organization, audit trail and team tokens): `create`, `regenerate`, `destroy`
 * - `task` (run tasks): `create`, `update`, `destroy`; `workspace_task`: `create`, `update`, `destroy`
 * - `run`: `apply`, `discard`, `cancel`; `task_stage`: `override`; each of these refused (403, or the 409 of an
 *   override already counted): `<action>_refused`, with `meta.refused` saying why (run-decision-audit.ts)
 *
 * `meta` never holds a secret: no token, no HMAC key (only whether one was set or changed).
 */
/** One list (src/shared), so the trail's `filter[type]` and the console's filter know exactly the types it records. */
export { AUDIT_RESOURCE_TYPES, type AuditResourceType } from '../shared/audit-resource-types.js';

export interface AuditResource {
  id: string;
  type: AuditResourceType;
  action: string;
  meta?: Record<string, unknown> | null;
}

export interface AuditEntry {
  organizationName: string;
  actor: Actor;
  resource: AuditResource;
}

export type AuditTrailRow = Omit<AuditTrailTable, 'seq'>;

/**
 * The row of an entry, made where the change is decided (so a change written later in a batch, team-inserts.ts,
 * keeps its own request's id and time).
 */
export function auditRow(entry: AuditEntry, at = nowIso()): AuditTrailRow {
  const { actor, resource } = entry;
  return {
    id: randomUUID(),
    organization_name: entry.organizationName,
    timestamp: at,
    // HCP names the user; a token that is no user (the organization token, the site admin) is named by its id.
    accessor_id: actor.userId ?? actor.tokenId ?? null,
    actor_name: actor.name,
    actor_kind: actor.kind,
    request_id: currentRequestId(),
    resource_id: resource.id,
    resource_type: resource.type,
    action: resource.action,
    meta: resource.meta ? JSON.stringify(resource.meta) : null,
  };
}

/**
 * What changed between two views of a thing, for `meta`: `{ before, after }` with only the keys whose value
 * differs (objects, such as organization access, compared key by key; lists by value), or undefined when nothing did.
 */
export function changedValues(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): { before: Record<string, unknown>; after: Record<string, unknown> } | undefined {
  const was: Record<string, unknown> = {};
  const is: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    const old = before[key];
    const now = after[key];
    if (isPlainObject(old) && isPlainObject(now)) {
      const inner = changedValues(old, now);
      if (inner) {
        was[key] = inner.before;
        is[key] = inner.after;
      }
    } else if (JSON.stringify(old ?? null) !== JSON.stringify(now ?? null)) {
      was[key] = old ?? null;
      is[key] = now ?? null;
    }
  }
  return Object.keys(is).length > 0 ? { before: was, after: is } : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
