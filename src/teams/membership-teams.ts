import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { OrganizationStanding } from '../access/organization-standing.js';
import { allows } from '../access/require-access.js';
import type { MembershipTeamsPort } from '../organizations/membership-teams-port.js';
import type { TeamsRepository } from './teams.repository.js';
import type { TeamsService } from './teams.service.js';

/** The teams domain's side of organization memberships (organizations' MembershipTeamsPort). */
export class MembershipTeams implements MembershipTeamsPort {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly teamsService: TeamsService,
  ) {}

  async canInviteInto(organizationName: string, standing: OrganizationStanding, teamId: string): Promise<boolean> {
    const team = await this.teams.findById(teamId);
    // Otherwise an invitation could place someone in a team the inviter cannot even see, the owners team
    // included, or in one the edition does not have: the same rule as adding a member to the team.
    return team !== undefined && team.organizationName === organizationName && allows(standing, 'team', 'add-members', team);
  }

  async addMembership(teamId: string, membershipId: string, now: string, executor?: Kysely<Database>): Promise<void> {
    await this.teams.addMemberships(teamId, [membershipId], now, executor);
  }

  async ownersTeamId(organizationName: string): Promise<string | undefined> {
    return (await this.teams.findOwnersTeam(organizationName))?.id;
  }

  withOwnersLocked: MembershipTeamsPort['withOwnersLocked'] = (organizationName, work) => this.teams.withOwnersLocked(organizationName, work);

  visibleTeamIdsAmong(standing: OrganizationStanding, teamIds: string[]): Promise<Set<string>> {
    return this.teamsService.visibleTeamIdsAmong(standing, teamIds);
  }
}
