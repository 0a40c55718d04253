import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: the nodes sharing the database, each with a heartbeat that expires. A node caches
 * responses only while it knows it is alone (src/db/lone-node-lease.ts). SQLite is one process by design.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create table cluster_nodes (
    id text primary key,
    expires_at timestamptz not null
  )`.execute(db);
}

