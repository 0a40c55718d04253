import { sql, type Kysely } from 'kysely';

/**
 * Jobs run in lanes (src/jobs/job-lanes.ts) so that waiting on a remote service never takes the slots
 * run progress, settling and timeouts need, and delivery jobs name their organization so one
 * organization cannot take every delivery slot. `organization_name` is '' for work that belongs to no
 * one organization in particular; it is not a foreign key: a job outlives nothing it points at, and its
 * handler re-reads the state anyway.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lane', 'text', (c) => c.notNull().defaultTo('work')).execute();
  await db.schema.alterTable('jobs').addColumn('organization_name', 'text', (c) => c.notNull().defaultTo('')).execute();
  // Deliveries queued before this migration move to their lane; without an organization they share one fair share.
  await sql`update jobs set lane = 'delivery' where kind = 'task-result.deliver'`.execute(db);
  // Every claim and wake-up reads one lane's due jobs in time order.
  await db.schema.dropIndex('jobs_due').execute();
  await db.schema.createIndex('jobs_lane_due').on('jobs').columns(['lane', 'run_at']).execute();
}
