import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * The record (issue 27): what happened to a run and who decided it.
 *
 * - `runs.error_message`: why an errored run errored (shown on the run and in its `errored` event).
 * - `run_events`: HCP's run events, one per transition and decision, with the actor and the comment.
 * - `comments`: HCP's run comments, written by `POST /runs/:id/comments` and by every decision that came
 *   with a comment (apply, discard, cancel, override).
 *
 * Events are read in the order they were written: `seq` is an ascending number of the database's own
 * (several events of one transaction share a millisecond), and the public id is a column of its own.
 * Run events and comments go with their run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const sequence = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()));

  await db.schema.alterTable('runs').addColumn('error_message', 'text').execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_user_id', 'text')
    .addColumn('author_name', 'text')
    .addColumn('run_event_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_run').on('comments').columns(['run_id', 'created_at']).execute();

  await sequence('run_events')
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('comment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('run_events_run').on('run_events').columns(['run_id', 'seq']).execute();

}
