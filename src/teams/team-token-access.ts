import type { TeamTokenPort } from '../identity/team-token-port.js';
import type { TeamsRepository } from './teams.repository.js';

/** The teams domain's side of token management (identity's TeamTokenPort). */
export class TeamTokenAccess implements TeamTokenPort {
  constructor(private readonly teams: TeamsRepository) {}

  findById(teamId: string) {
    return this.teams.findById(teamId);
  }

  async setServiceAccount(teamId: string, userId: string): Promise<void> {
    await this.teams.update(teamId, { service_account_user_id: userId });
  }
}
