import { canReadWorkspaces } from '../access/workspace-permissions.js';
import { NotFound, Unauthorized } from '../core/errors.js';
import type { Authenticator } from '../identity/authenticate.js';
import type { OrganizationGate } from '../organizations/organization-gate.js';
import type { TaskAccessTokens } from './task-access-port.js';

/**
 * Who may download a run's configuration archive or plan JSON (CONTRACT 9): a normal API token that
 * can read the workspace, or the access token a run task received for a result of one of those runs,
 * while that result is open. These routes are public to the authentication hook and decide here.
 */
export class ArtifactAccess {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly gate: OrganizationGate,
    private readonly taskAccessTokens: TaskAccessTokens,
  ) {}

  /**
   * Resolves when allowed. 401 for a missing token or one that is neither kind; 404 for a missing
   * artifact (`target` undefined) or an API token that may not see the workspace, as everywhere else.
   * `runIds` is only asked for when the token is not an API token.
   */
  async authorize(
    token: string | undefined,
    target: { organizationName: string; runIds: () => Promise<string[]> } | undefined,
    what: string,
  ): Promise<void> {
    if (!token) throw new Unauthorized();
    let principal;
    try {
      principal = await this.authenticator.authenticate(token);
    } catch (error) {
      if (!(error instanceof Unauthorized) || !target) throw error;
      for (const runId of await target.runIds()) {
        if (await this.taskAccessTokens.authorizeDownload(token, runId)) return;
      }
      throw new Unauthorized();
    }
    if (!target) throw new NotFound(`${what} not found`);
    const { organizationName } = target;
    let standing;
    try {
      standing = (await this.gate.enter(principal, organizationName)).standing;
    } catch (error) {
      if (error instanceof NotFound) throw new NotFound(`${what} not found`);
      throw error;
    }
    if (!canReadWorkspaces(standing)) throw new NotFound(`${what} not found`);
  }
}
