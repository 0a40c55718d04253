import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../core/ids.js';

export interface TagRow {
  id: string;
  name: string;
}

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * HCP's tags: one row per name in an organization (`organization_tags`), attached to workspaces in the order
 * they were added (`workspace_tags`). Every change also rewrites the workspace's `tag_names`, the names in
 * that order, which the serializer reads without a join.
 */
export class WorkspaceTagsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  tagsOf(workspaceId: string, executor: Executor = this.db): Promise<TagRow[]> {
    return executor
      .selectFrom('workspace_tags')
      .innerJoin('organization_tags', 'organization_tags.id', 'workspace_tags.tag_id')
      .select(['organization_tags.id', 'organization_tags.name'])
      .where('workspace_tags.workspace_id', '=', workspaceId)
      .orderBy('workspace_tags.position')
      .execute();
  }

  /** The organization's tags of these ids (unknown ones are left out). */
  byIds(trx: Executor, organizationName: string, ids: string[]): Promise<TagRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return trx.selectFrom('organization_tags').select(['id', 'name']).where('organization_name', '=', organizationName).where('id', 'in', ids).execute();
  }

  /** The organization's tags of these names, made where missing. */
  async ensureNamed(trx: Executor, organizationName: string, names: string[], now: string): Promise<TagRow[]> {
    if (names.length === 0) return [];
    await trx
      .insertInto('organization_tags')
      .values(names.map((name) => ({ id: newId('tag'), organization_name: organizationName, name, created_at: now })))
      .onConflict((oc) => oc.columns(['organization_name', 'name']).doNothing())
      .execute();
    const rows = await trx.selectFrom('organization_tags').select(['id', 'name']).where('organization_name', '=', organizationName).where('name', 'in', names).execute();
    const byName = new Map(rows.map((row) => [row.name, row]));
    return names.map((name) => byName.get(name)!);
  }

  /** Adds tags after the ones the workspace has (one already there keeps its place). */
  async attach(trx: Executor, workspaceId: string, tags: TagRow[]): Promise<void> {
    const current = await this.tagsOf(workspaceId, trx);
    const have = new Set(current.map((tag) => tag.id));
    const added = tags.filter((tag, index) => !have.has(tag.id) && tags.findIndex((other) => other.id === tag.id) === index);
    if (added.length > 0) {
      await trx.insertInto('workspace_tags').values(added.map((tag, index) => ({ workspace_id: workspaceId, tag_id: tag.id, position: current.length + index }))).execute();
    }
    await this.writeNames(trx, workspaceId, [...current, ...added]);
  }

  async detach(trx: Executor, workspaceId: string, tagIds: string[]): Promise<void> {
    if (tagIds.length > 0) await trx.deleteFrom('workspace_tags').where('workspace_id', '=', workspaceId).where('tag_id', 'in', tagIds).execute();
    await this.writeNames(trx, workspaceId, await this.tagsOf(workspaceId, trx));
  }

  /** The workspace's tags become exactly these, in this order (the `tag-names` attribute). */
  async replace(trx: Executor, workspaceId: string, tags: TagRow[]): Promise<void> {
    await trx.deleteFrom('workspace_tags').where('workspace_id', '=', workspaceId).execute();
    await this.attach(trx, workspaceId, tags);
  }

  private async writeNames(trx: Executor, workspaceId: string, tags: TagRow[]): Promise<void> {
    await trx.updateTable('workspaces').set({ tag_names: JSON.stringify(tags.map((tag) => tag.name)) }).where('id', '=', workspaceId).execute();
  }
}
