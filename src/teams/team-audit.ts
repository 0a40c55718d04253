import type { Principal } from '../core/principal.js';
import { actorOf } from '../record/actor.js';
import { changedValues, type AuditEntry } from '../record/audit-trail.js';
import type { Team } from './team.js';

/**
 * The audit trail's entries about teams (record/audit-trail.ts): what a team was and became, in the API's own
 * attribute names, and who joined or left it.
 */

/** What the trail shows of a team: the attributes whose changes it records. */
function auditedAttributes(team: Team): Record<string, unknown> {
  return {
    name: team.name,
    visibility: team.visibility,
    'organization-access': { ...team.access },
    'sso-team-id': team.ssoTeamId,
    'allow-member-token-management': team.allowMemberTokenManagement,
  };
}

function entry(principal: Principal, team: Team, action: string, meta: Record<string, unknown>): AuditEntry {
  return { organizationName: team.organizationName, actor: actorOf(principal), resource: { id: team.id, type: 'team', action, meta } };
}

export function teamCreated(principal: Principal, team: Team): AuditEntry {
  return entry(principal, team, 'create', { after: auditedAttributes(team) });
}

/** Undefined when the update changed nothing the trail records (nothing to record). */
export function teamUpdated(principal: Principal, before: Team, after: Team): AuditEntry | undefined {
  const changes = changedValues(auditedAttributes(before), auditedAttributes(after));
  return changes && entry(principal, after, 'update', { name: after.name, ...changes });
}

export function teamDeleted(principal: Principal, team: Team): AuditEntry {
  return entry(principal, team, 'destroy', { before: auditedAttributes(team) });
}

/** Members added or removed: by username and organization membership id. */
export function teamMembersChanged(
  principal: Principal,
  team: Team,
  action: 'add_members' | 'remove_members',
  members: ReadonlyArray<{ membershipId: string; username?: string }>,
): AuditEntry {
  return entry(principal, team, action, {
    name: team.name,
    'organization-memberships': members.map((member) => member.membershipId),
    users: members.flatMap((member) => (member.username ? [member.username] : [])),
  });
}
