import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: a new job wakes every node's worker through NOTIFY sent by a statement trigger, in
 * the transaction that inserts it (delivered on commit), instead of a `select pg_notify` round trip after
 * every enqueue. The channel is jobs/job-queue.ts's NOTIFY_CHANNEL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create function teamstage_jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('teamstage_jobs', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger jobs_notify after insert on jobs for each statement execute function teamstage_jobs_notify()`.execute(db);
}
