import type { Kysely } from 'kysely';
import type { CommentsTable, Database, RunEventsTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { runEventRows, type RunEventInput } from './run-record.js';

export type RunEventRecord = Omit<RunEventsTable, 'seq'> & { seq: number | string };
export type CommentRecord = CommentsTable;
/** An event's id, its run's, and the id of the comment given with it (null when none). */
export type RunRecordIds = Pick<RunEventsTable, 'id' | 'run_id' | 'comment_id'>;

const EVENT_COLUMNS = ['seq', 'id', 'run_id', 'action', 'description', 'actor_user_id', 'actor_name', 'comment_id', 'created_at'] as const;

/** SQL of run events and comments (migration 015). Written in the caller's transaction; read in order. */
export class RunRecordRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(executor: Executor, events: readonly RunEventInput[]): Promise<{ comments: CommentRecord[] }> {
    if (events.length === 0) return { comments: [] };
    const rows = runEventRows(events);
    if (rows.comments.length > 0) await executor.insertInto('comments').values(rows.comments).execute();
    await executor.insertInto('run_events').values(rows.events).execute();
    return { comments: rows.comments };
  }

  async eventsOf(runId: string, offset: number, limit: number): Promise<{ rows: RunEventRecord[]; total: number }> {
    const rows = await this.db.selectFrom('run_events').select(EVENT_COLUMNS).where('run_id', '=', runId).orderBy('seq').limit(limit).offset(offset).execute();
    const count = await this.db.selectFrom('run_events').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  findEvent(id: string): Promise<RunEventRecord | undefined> {
    return this.db.selectFrom('run_events').select(EVENT_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** In the order they were written. */
  async commentsOf(runId: string, offset: number, limit: number): Promise<{ rows: CommentRecord[]; total: number }> {
    const direction = 'asc';
    const rows = await this.db
      .selectFrom('comments as c')
      .innerJoin('run_events as e', 'e.id', 'c.run_event_id')
      .selectAll('c')
      .where('c.run_id', '=', runId)
      .orderBy('e.seq', direction)
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db.selectFrom('comments').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  findComment(id: string): Promise<CommentRecord | undefined> {
    return this.db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The comments with these ids (`include=comment` of run events). */
  commentsWithIds(ids: readonly string[]): Promise<CommentRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('comments').selectAll().where('id', 'in', [...ids]).execute();
  }

  /** Users shown as actors (`include=actor`): id and username. */
  usersWithIds(ids: readonly string[]): Promise<Array<{ id: string; username: string }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', [...ids]).execute();
  }
}

/**
 * The port every domain records a run's events through (runs, task stages, policies): `record` writes them in
 * the caller's transaction, so an event exists exactly when its change committed.
 *
 * For a domain that wants one call: `await recorder.record(trx, { runId, action, description, actor, comment, at })`.
 */
export class RunRecorder {
  constructor(private readonly repository: RunRecordRepository) {}

  /** Answers the comments written with the events. */
  async record(executor: Executor, ...events: RunEventInput[]): Promise<{ comments: CommentRecord[] }> {
    return this.repository.insert(executor, events);
  }
}
