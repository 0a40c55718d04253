import { TERMINAL_RUN_STATUSES } from '../shared/run-statuses.js';
import type { Kysely } from 'kysely';
import type { Executor } from '../jobs/job-queue.js';
import type { ConfigurationVersionsTable, Database } from '../db/schema.js';

export type ConfigurationVersionRow = ConfigurationVersionsTable;

const COLUMNS = [
  'id', 'workspace_id', 'status', 'status_timestamps', 'auto_queue_runs', 'speculative', 'provisional', 'upload_token_hash', 'archive_size',
  'created_by_user_id', 'created_at', 'updated_at',
] as const;

export class ConfigurationVersionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A new version; one that is not provisional becomes its workspace's current version at once (HCP). */
  async insert(row: ConfigurationVersionRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('configuration_versions').values(row).execute();
      if (row.provisional === 0) {
        await trx.updateTable('workspaces').set({ current_configuration_version_id: row.id }).where('id', '=', row.workspace_id).execute();
      }
    });
  }

  /** A provisional version whose run was applied becomes its workspace's current version (HCP); others change nothing. */
  async promoteProvisional(executor: Executor, id: string): Promise<void> {
    await executor
      .updateTable('workspaces')
      .set({ current_configuration_version_id: id })
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('configuration_versions as cv').select('cv.id').where('cv.id', '=', id).where('cv.provisional', '=', 1).whereRef('cv.workspace_id', '=', 'workspaces.id')),
      )
      .execute();
  }

  findById(id: string, executor: Executor = this.db): Promise<ConfigurationVersionRow | undefined> {
    return executor.selectFrom('configuration_versions').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findByUploadTokenHash(hash: string): Promise<ConfigurationVersionRow | undefined> {
    return this.db.selectFrom('configuration_versions').select(COLUMNS).where('upload_token_hash', '=', hash).executeTakeFirst();
  }

  /**
   * Marks a pending version uploaded, the first step of storing its archive (in the same transaction as
   * its pieces). Only a pending version takes an archive: answers whether this call took it.
   */
  async markUploaded(executor: Executor, id: string, archiveSize: number, statusTimestamps: string, now: string): Promise<boolean> {
    const result = await executor
      .updateTable('configuration_versions')
      .set({ archive_size: archiveSize, status: 'uploaded', status_timestamps: statusTimestamps, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * An uploaded version takes a new archive while no run was made from it: its size changes, in the
   * transaction that then replaces its pieces. Answers whether it took it.
   */
  async markReuploaded(executor: Executor, id: string, archiveSize: number, now: string): Promise<boolean> {
    const result = await executor
      .updateTable('configuration_versions')
      .set({ archive_size: archiveSize, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'uploaded')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('runs').select('runs.id').where('runs.configuration_version_id', '=', id))))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Archives an uploaded version no unfinished run uses, in one statement (no run can start from it in between):
   * `archived`, its stored archive deleted by the caller in the same transaction. True when archived.
   */
  async markArchived(executor: Executor, id: string, statusTimestamps: string, now: string): Promise<boolean> {
    const result = await executor
      .updateTable('configuration_versions')
      .set({ status: 'archived', status_timestamps: statusTimestamps, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'uploaded')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('runs as r')
              .select('r.id')
              .where('r.configuration_version_id', '=', id)
              .where('r.status', 'not in', [...TERMINAL_RUN_STATUSES])
              // `applied` is finished unless a post-apply stage (which may download the configuration) is to come.
              .where((eb) => eb.or([eb('r.status', '<>', 'applied'), eb.exists(eb.selectFrom('task_stages as s').select('s.id').whereRef('s.run_id', '=', 'r.id').where('s.stage', '=', 'post_apply'))])),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteArchiveChunks(executor: Executor, id: string): Promise<void> {
    await executor.deleteFrom('configuration_archive_chunks').where('configuration_version_id', '=', id).execute();
  }

  async insertArchiveChunk(executor: Executor, id: string, position: number, data: Buffer): Promise<void> {
    await executor.insertInto('configuration_archive_chunks').values({ configuration_version_id: id, position, data }).execute();
  }

  /** The archive piece by piece, one query each, so that reading it never holds more than a piece. */
  async *archiveChunks(id: string): AsyncGenerator<Buffer> {
    for (let position = 0; ; position++) {
      const row = await this.db
        .selectFrom('configuration_archive_chunks')
        .select('data')
        .where('configuration_version_id', '=', id)
        .where('position', '=', position)
        .executeTakeFirst();
      if (!row) return;
      yield row.data;
    }
  }

  /** The whole archive at once, for an executor; null before an upload. */
  async readArchive(id: string): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.archiveChunks(id)) chunks.push(chunk);
    return chunks.length > 0 ? Buffer.concat(chunks) : null;
  }

  /** A page of the workspace's versions, newest first (as HCP lists them), and how many it has. */
  async listOfWorkspace(workspaceId: string, offset: number, limit: number): Promise<{ rows: ConfigurationVersionRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('configuration_versions')
      .select(COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('configuration_versions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** The newest uploaded version of the workspace: what a run without an explicit one uses. */
  latestUploaded(executor: Executor, workspaceId: string): Promise<ConfigurationVersionRow | undefined> {
    return executor
      .selectFrom('configuration_versions')
      .select(COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'uploaded')
      // A provisional version is used only once it is current (its run was applied).
      .where(({ or, eb, selectFrom }) =>
        or([eb('provisional', '=', 0), eb('id', '=', selectFrom('workspaces').select('current_configuration_version_id').where('workspaces.id', '=', workspaceId))]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The newest runs built from this version: the runs whose task access tokens may download it. */
  async runIdsUsing(id: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('runs')
      .select('id')
      .where('configuration_version_id', '=', id)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }
}
