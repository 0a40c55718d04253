import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { WorkspaceRow } from './workspaces.repository.js';

/**
 * HCP's remote state consumers: the workspaces that may read a workspace's state when its
 * `global-remote-state` is false. Teamstage keeps no state: it records the list for clients to read back.
 */
export class RemoteStateConsumersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Of these ids, those naming workspaces of the organization. */
  async existingIn(organizationName: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('workspaces').select('id').where('organization_name', '=', organizationName).where('id', 'in', ids).execute();
    return new Set(rows.map((row) => row.id));
  }

  async add(workspaceId: string, consumerIds: string[], now: string): Promise<void> {
    if (consumerIds.length === 0) return;
    await this.db
      .insertInto('workspace_remote_state_consumers')
      .values(consumerIds.map((consumer_id) => ({ workspace_id: workspaceId, consumer_id, created_at: now })))
      .onConflict((oc) => oc.columns(['workspace_id', 'consumer_id']).doNothing())
      .execute();
  }

  async remove(workspaceId: string, consumerIds: string[]): Promise<void> {
    if (consumerIds.length === 0) return;
    await this.db.deleteFrom('workspace_remote_state_consumers').where('workspace_id', '=', workspaceId).where('consumer_id', 'in', consumerIds).execute();
  }

  async replace(workspaceId: string, consumerIds: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('workspace_remote_state_consumers').where('workspace_id', '=', workspaceId).execute();
      if (consumerIds.length > 0) {
        await trx.insertInto('workspace_remote_state_consumers').values([...new Set(consumerIds)].map((consumer_id) => ({ workspace_id: workspaceId, consumer_id, created_at: now }))).execute();
      }
    });
  }

  /** The consumers, as workspaces, oldest addition first. */
  async list(workspaceId: string, columns: readonly unknown[], offset: number, limit: number): Promise<{ rows: WorkspaceRow[]; total: number }> {
    const base = this.db
      .selectFrom('workspace_remote_state_consumers')
      .innerJoin('workspaces', 'workspaces.id', 'workspace_remote_state_consumers.consumer_id')
      .where('workspace_remote_state_consumers.workspace_id', '=', workspaceId);
    const rows = (await base
      .select(columns as never)
      .orderBy('workspace_remote_state_consumers.created_at')
      .orderBy('workspaces.id')
      .limit(limit)
      .offset(offset)
      .execute()) as unknown as WorkspaceRow[];
    const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }
}
