import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: a new run NOTIFYs `teamstage_runs` with its workspace id too (migration 021 signals status
 * changes only), so a page waiting on a workspace's runs (`GET /workspaces/:id/runs?wait=…`, the console's
 * workspace page) shows a run that was created behind another and stays `pending`. Reuses 021's function.
 * SQLite does the same with a temporary trigger (db/run-change-signals.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create trigger runs_inserted after insert on runs for each row execute function teamstage_run_changed()`.execute(db);
}
