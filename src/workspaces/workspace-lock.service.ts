import type { Kysely, Transaction } from 'kysely';
import { requireAccess } from '../access/require-access.js';
import type { WorkspaceContext } from '../access/workspace-gate.js';
import { Errors } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import { forUpdate } from '../db/row-lock.js';
import type { Dialect } from '../db/database.js';
import type { WorkspaceRow, WorkspacesRepository } from './workspaces.repository.js';

/** Who holds a lock, as HCP's polymorphic `locked-by` names it. */
function holderOf(principal: Principal): { kind: string; id: string } {
  if (principal.kind === 'user') return { kind: 'users', id: principal.userId };
  if (principal.kind === 'team') return { kind: 'teams', id: principal.teamId };
  if (principal.kind === 'organization') return { kind: 'organizations', id: principal.organizationName };
  return { kind: 'users', id: 'site-admin' };
}

const HOLDER_NAMES: Record<string, string> = { users: 'User', teams: 'Team', runs: 'Run', organizations: 'Organization' };

/**
 * Called in the transaction that unlocks a workspace: the runs layer wakes the run that waited for it
 * (runs sit above workspaces, so services.ts plugs this in).
 */
export type WorkspaceUnlockedHook = (trx: Transaction<Database>, workspaceId: string, organizationName: string) => Promise<void>;

/**
 * HCP's workspace lock (`actions/lock`, `unlock`, `force-unlock`): a gate's freeze switch. While a workspace is
 * locked, runs may be queued but none starts (the run queue counts the lock as a run ahead); speculative plans
 * still run, as in HCP. Only the lock's holder unlocks (409 naming the holder otherwise, the words go-tfe
 * matches); whoever may manage the workspace force-unlocks. Read–decide–write under the workspace's row lock.
 */
export class WorkspaceLockService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly workspaces: WorkspacesRepository,
    private readonly onUnlocked: WorkspaceUnlockedHook,
  ) {}

  async lock(found: WorkspaceContext): Promise<WorkspaceRow> {
    requireAccess(found.context.standing, 'workspace', 'lock', {});
    const holder = holderOf(found.context.standing.principal);
    return this.change(found.workspace.id, async (trx, locked) => {
      if (locked.locked === 1) throw Errors.workspaceAlreadyLocked();
      await this.workspaces.update(found.workspace.id, { locked: 1, locked_by_kind: holder.kind, locked_by_id: holder.id, updated_at: nowIso() }, trx);
    });
  }

  async unlock(found: WorkspaceContext, force: boolean): Promise<WorkspaceRow> {
    requireAccess(found.context.standing, 'workspace', force ? 'force-unlock' : 'lock', {});
    const holder = holderOf(found.context.standing.principal);
    return this.change(found.workspace.id, async (trx, locked) => {
      if (locked.locked !== 1) throw Errors.workspaceNotLocked();
      if (!force && (locked.locked_by_kind !== holder.kind || locked.locked_by_id !== holder.id)) {
        throw Errors.workspaceLockedByOther(`${HOLDER_NAMES[locked.locked_by_kind ?? ''] ?? 'User'} ${locked.locked_by_id ?? ''}`.trim());
      }
      await this.workspaces.update(found.workspace.id, { locked: 0, locked_by_kind: null, locked_by_id: null, updated_at: nowIso() }, trx);
      await this.onUnlocked(trx, found.workspace.id, found.workspace.organization_name);
    });
  }

  private async change(workspaceId: string, decide: (trx: Transaction<Database>, row: { locked: number; locked_by_kind: string | null; locked_by_id: string | null }) => Promise<void>): Promise<WorkspaceRow> {
    await this.db.transaction().execute(async (trx) => {
      const row = await forUpdate(trx.selectFrom('workspaces').select(['locked', 'locked_by_kind', 'locked_by_id']).where('id', '=', workspaceId), this.dialect).executeTakeFirst();
      if (!row) throw Errors.workspaceNotFound();
      await decide(trx, row);
    });
    const updated = await this.workspaces.findById(workspaceId);
    if (!updated) throw Errors.workspaceNotFound();
    return updated;
  }
}
