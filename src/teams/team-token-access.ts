import { requireAccess } from '../access/require-access.js';
import type { Principal } from '../core/principal.js';
import type { TeamTokenPort } from '../identity/team-token-port.js';
import type { TeamsRepository } from './teams.repository.js';
import type { TeamsService } from './teams.service.js';

/** The teams domain's side of token management (identity's TeamTokenPort): which team tokens a caller may manage. */
export class TeamTokenAccess implements TeamTokenPort {
  constructor(
    private readonly teamsService: TeamsService,
    private readonly teams: TeamsRepository,
  ) {}

  async manageableTeam(principal: Principal, teamId: string) {
    const { row, standing } = await this.teamsService.visibleTeam(principal, teamId);
    requireAccess(standing, 'team', 'manage-tokens', row);
    return { team: row, standing };
  }

  findById(teamId: string) {
    return this.teams.findById(teamId);
  }

  async setServiceAccount(teamId: string, userId: string): Promise<void> {
    await this.teams.update(teamId, { service_account_user_id: userId });
  }
}
