import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: a run's or task stage's status change NOTIFYs `teamstage_runs` with the run's workspace
 * id, in the transaction that writes it (delivered on commit, to every node), so a waiting run read
 * (`GET /runs/:id?wait=…`, runs/run-waits.ts) answers within milliseconds wherever the change was made.
 * PostgreSQL folds identical notifications of one transaction into one. The channel is
 * db/run-change-signals.ts's RUN_CHANGES_CHANNEL. SQLite does the same with temporary triggers in the
 * server's own connection (run-change-signals.ts): only that process writes to its file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function teamstage_run_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('teamstage_runs', new.workspace_id);
      return null;
    end $$`.execute(db);
  await sql`create trigger runs_changed after update of status on runs
    for each row when (old.status is distinct from new.status) execute function teamstage_run_changed()`.execute(db);
  await sql`create or replace function teamstage_task_stage_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('teamstage_runs', workspace_id) from runs where id = new.run_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger task_stages_changed after update of status on task_stages
    for each row when (old.status is distinct from new.status) execute function teamstage_task_stage_changed()`.execute(db);
}
