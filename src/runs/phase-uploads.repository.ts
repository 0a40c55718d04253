import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';

/** An upload as stored: its size and its pieces, read one at a time as they are consumed. */
export interface StoredUpload {
  size: number;
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>;
}

/** Rows of this size hold an upload: memory per upload or download stays about one of them. */
export const UPLOAD_CHUNK_BYTES = 256 * 1024;

/**
 * The pieces of plan JSON and log uploads (migration 013). An upload's pieces are written one statement
 * each, outside any transaction, so that tens of MiB going in never hold the database (SQLite has one
 * writer) for longer than one piece; a phase points at an upload only once all of it is in
 * (RunsRepository.attachUpload). Read back one piece per query, so that serving one holds one piece.
 */
export class PhaseUploadsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes the upload's pieces in order; answers the bytes written. */
  async write(runId: string, uploadId: string, pieces: AsyncIterable<Buffer> | Iterable<Buffer>, executor: Executor = this.db): Promise<number> {
    let position = 0;
    let bytes = 0;
    for await (const data of pieces) {
      await executor.insertInto('phase_upload_chunks').values({ upload_id: uploadId, position: position++, run_id: runId, data }).execute();
      bytes += data.length;
    }
    return bytes;
  }

  /** The upload piece by piece, one query each. */
  async *read(uploadId: string): AsyncGenerator<Buffer> {
    for (let position = 0; ; position++) {
      const row = await this.db
        .selectFrom('phase_upload_chunks')
        .select('data')
        .where('upload_id', '=', uploadId)
        .where('position', '=', position)
        .executeTakeFirst();
      if (!row) return;
      yield Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data);
    }
  }

  /** Removes an upload's pieces: one no phase points at (replaced, or refused after it was written). */
  async remove(uploadId: string, executor: Executor = this.db): Promise<void> {
    await executor.deleteFrom('phase_upload_chunks').where('upload_id', '=', uploadId).execute();
  }
}
