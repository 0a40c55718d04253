import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * HCP's organization audit trail (issue 27, `GET /organization/audit-trail`): who changed which team, its
 * organization access, memberships, tokens, run tasks and workspace tasks, and every run decision. One row per
 * change, written in the transaction of the change itself (record/audit-trail-recorder.ts), so the trail holds
 * exactly what committed.
 *
 * - `seq`: the database's own ascending number; the trail is read in the order it was written.
 * - `id`: the public id (a UUID, as HCP's).
 * - `accessor_id`, `actor_name`, `actor_kind`: who did it (record/actor.ts): the user (a person or a team token's
 *   service account), else the token's id; the name shown; the kind of token.
 * - `resource_*`: what was changed and how; `meta` is a JSON object (before and after where it matters),
 *   never a secret.
 *
 * The trail goes with its organization.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('audit_trail')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('organization_name', 'text', (c) => c.notNull().references('organizations.name').onDelete('cascade'))
    .addColumn('timestamp', 'text', (c) => c.notNull())
    .addColumn('accessor_id', 'text')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('meta', 'text')
    .execute();
  await db.schema.createIndex('audit_trail_organization').on('audit_trail').columns(['organization_name', 'seq']).execute();
  await db.schema.createIndex('audit_trail_organization_time').on('audit_trail').columns(['organization_name', 'timestamp']).execute();
}
