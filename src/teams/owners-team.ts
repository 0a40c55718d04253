import { fullAccess } from '../access/organization-access.js';
import { newId } from '../core/ids.js';
import type { OrganizationCreatedHook } from '../organizations/organization-created-hook.js';
import type { TeamsRepository } from './teams.repository.js';

/** Every organization is born with its owners team, the creator (if a user) its first member. */
export function createOwnersTeam(teams: TeamsRepository): OrganizationCreatedHook {
  return async (trx, organization) => {
    const ownersId = newId('team');
    await teams.insert(trx, {
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
    });
    if (organization.creatorMembershipId !== null) {
      await teams.addMemberships(ownersId, [organization.creatorMembershipId], organization.now, trx);
    }
  };
}
