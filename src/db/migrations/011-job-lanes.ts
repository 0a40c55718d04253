import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Jobs run in lanes (src/jobs/job-lanes.ts) so that waiting on a remote service never takes the slots
 * run progress, settling and timeouts need, and delivery jobs name their organization so one
 * organization cannot take every delivery slot. `organization_name` is '' for work that belongs to no
 * one organization in particular; it is not a foreign key: a job outlives nothing it points at, and its
 * handler re-reads the state anyway.
 *
 * PostgreSQL: the wake-up of migration 007 now says, per lane, when the earliest inserted job is due
 * (`<lane> <run_at>`, jobs/job-notification.ts), so a deadline an hour away wakes no lane of any node.
 * A statement that inserted nothing (its rows met their dedupe keys, and a `replace` moved a job)
 * still sends the bare wake-up: every lane looks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lane', 'text', (c) => c.notNull().defaultTo('work')).execute();
  await db.schema.alterTable('jobs').addColumn('organization_name', 'text', (c) => c.notNull().defaultTo('')).execute();
  // Deliveries queued before this migration move to their lane; without an organization they share one fair share.
  await sql`update jobs set lane = 'delivery' where kind = 'task-result.deliver'`.execute(db);
  // Every claim and wake-up reads one lane's due jobs in time order.
  await db.schema.dropIndex('jobs_due').execute();
  await db.schema.createIndex('jobs_lane_due').on('jobs').columns(['lane', 'run_at']).execute();
  // A fair claim walks the organizations of a lane and reads the head of each one's queue (fair-claim.ts).
  await db.schema.createIndex('jobs_lane_organization_due').on('jobs').columns(['lane', 'organization_name', 'run_at']).execute();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function teamstage_jobs_notify() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from inserted_jobs) then
        perform pg_notify('teamstage_jobs', lane || ' ' || min(run_at)) from inserted_jobs group by lane;
      else
        perform pg_notify('teamstage_jobs', '');
      end if;
      return null;
    end $$`.execute(db);
  await sql`drop trigger jobs_notify on jobs`.execute(db);
  await sql`create trigger jobs_notify after insert on jobs referencing new table as inserted_jobs
    for each statement execute function teamstage_jobs_notify()`.execute(db);
}
