import { Errors, ApiError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { HIDDEN_AS } from './access-table.js';
import type { WorkspaceGate } from './workspace-gate.js';
import type { TaskAccessTokens } from './task-access-port.js';

/** How an API token becomes a principal; identity's Authenticator is one (wired in services.ts). */
export interface TokenAuthenticator {
  authenticate(token: string | undefined): Promise<Principal>;
}

/**
 * Who may download a run's configuration archive or plan JSON: a normal API token that can read the
 * workspace, or the access token a run task received for a result of one of those runs, while that
 * result is open. These routes are public to the authentication hook and decide here.
 */
export class ArtifactAccess {
  constructor(
    private readonly authenticator: TokenAuthenticator,
    private readonly workspaceGate: WorkspaceGate,
    private readonly taskAccessTokens: TaskAccessTokens,
  ) {}

  /**
   * Resolves when allowed. 401 for a missing token or one that is neither kind; for a missing artifact
   * (`target` undefined) or an API token the access table hides it from, its "not found", as everywhere
   * else. `runIds` is only asked for when the token is not an API token.
   */
  async authorize(
    token: string | undefined,
    target: { organizationName: string; workspaceId: string; runIds: () => Promise<string[]> } | undefined,
    thing: 'configuration-version' | 'plan',
  ): Promise<void> {
    if (!token) throw Errors.tokenInvalid();
    let principal;
    try {
      principal = await this.authenticator.authenticate(token);
    } catch (error) {
      // Not an API token: perhaps a run task's access token, which only reaches artifacts that exist.
      if (!(error instanceof ApiError && error.status === 401) || !target) throw error;
      for (const runId of await target.runIds()) {
        if (await this.taskAccessTokens.authorizeDownload(token, runId)) return;
      }
      throw Errors.tokenInvalid();
    }
    if (!target) throw HIDDEN_AS[thing]({});
    await this.workspaceGate.enterOrganizationOf(principal, { id: target.workspaceId, organization_name: target.organizationName }, thing);
  }
}
