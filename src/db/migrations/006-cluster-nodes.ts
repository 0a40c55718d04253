import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: the nodes sharing the database, each with a heartbeat that expires. It served a
 * lone-node cache lease that is gone (nothing is cached since issue 18); the
 * table stays because applied migrations are never edited away.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create table cluster_nodes (
    id text primary key,
    expires_at timestamptz not null
  )`.execute(db);
}

