import { fullAccess } from '../access/organization-access.js';
import { newId } from '../core/ids.js';
import type { OrganizationCreatedHook } from '../organizations/organization-created-hook.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import type { TeamsRepository } from './teams.repository.js';
import { teamCreated, teamMembersChanged } from './team-audit.js';
import { teamFromRow } from './team.js';

/**
 * Every organization is born with its owners team, the creator (if a user) its first member: the first
 * entries of its audit trail.
 */
export function createOwnersTeam(teams: TeamsRepository, auditTrail: AuditTrailRecorder): OrganizationCreatedHook {
  return async (trx, organization) => {
    const ownersId = newId('team');
    const row = {
      id: ownersId,
      organization_name: organization.name,
      name: 'owners',
      name_lower: 'owners',
      sso_team_id: null,
      visibility: 'secret',
      allow_member_token_management: 1,
      organization_access: JSON.stringify(fullAccess()),
      is_owners: 1,
      service_account_user_id: null,
      created_at: organization.now,
      updated_at: organization.now,
    } as const;
    await teams.insert(trx, row);
    const team = teamFromRow(row);
    await auditTrail.record(trx, teamCreated(organization.creator, team));
    if (organization.creatorMembershipId !== null) {
      await teams.addMemberships(ownersId, [organization.creatorMembershipId], organization.now, trx);
      const username = organization.creator.kind === 'user' ? organization.creator.username : undefined;
      await auditTrail.record(trx, teamMembersChanged(organization.creator, team, 'add_members', [{ membershipId: organization.creatorMembershipId, username }]));
    }
  };
}
