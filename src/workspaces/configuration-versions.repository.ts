import type { Kysely } from 'kysely';
import type { Executor } from '../jobs/job-queue.js';
import type { ConfigurationVersionsTable, Database } from '../db/schema.js';

/** A configuration version without its archive (which is read only for downloads). */
export type ConfigurationVersionRow = Omit<ConfigurationVersionsTable, 'archive'>;

const COLUMNS = [
  'id', 'workspace_id', 'status', 'status_timestamps', 'auto_queue_runs', 'speculative', 'upload_token_hash', 'archive_size',
  'created_by_user_id', 'created_at', 'updated_at',
] as const;

export class ConfigurationVersionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ConfigurationVersionRow): Promise<void> {
    await this.db.insertInto('configuration_versions').values({ ...row, archive: null }).execute();
  }

  findById(id: string, executor: Executor = this.db): Promise<ConfigurationVersionRow | undefined> {
    return executor.selectFrom('configuration_versions').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findByUploadTokenHash(hash: string): Promise<ConfigurationVersionRow | undefined> {
    return this.db.selectFrom('configuration_versions').select(COLUMNS).where('upload_token_hash', '=', hash).executeTakeFirst();
  }

  /** Stores the archive once: only a pending version takes it. Answers whether this call stored it. */
  async storeArchive(executor: Executor, id: string, archive: Buffer, statusTimestamps: string, now: string): Promise<boolean> {
    const result = await executor
      .updateTable('configuration_versions')
      .set({ archive, archive_size: archive.length, status: 'uploaded', status_timestamps: statusTimestamps, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async readArchive(id: string): Promise<Buffer | null> {
    const row = await this.db.selectFrom('configuration_versions').select('archive').where('id', '=', id).executeTakeFirst();
    return row?.archive ?? null;
  }

  /** The newest uploaded version of the workspace: what a run without an explicit one uses. */
  latestUploaded(executor: Executor, workspaceId: string): Promise<ConfigurationVersionRow | undefined> {
    return executor
      .selectFrom('configuration_versions')
      .select(COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'uploaded')
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
