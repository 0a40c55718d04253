import { sql, type QueryCreator } from 'kysely';
import type { TableRows } from '../db/multi-table-insert.js';
import type { Database } from '../db/schema.js';
import { jobRowValues, newJobRow, replacePendingJob, type JobRowValues, type NewJob } from './job-queue.js';

/*
 * Pieces of statements that write a job together with other rows, in one round trip. The jobs layer owns
 * the `jobs` table: a repository that enqueues a job inside its own statement composes one of these
 * instead of naming the table (issue 15: each table has one owning repository).
 */

/** A new job as the last table of a multi-table insert (db/multi-table-insert.ts). */
export function newJobTableRows(job: NewJob): TableRows<'jobs'> {
  return { table: 'jobs', rows: [newJobRow(job)] };
}

/**
 * The parameters of `replacingJobInsertFrom`, prefixed so they sit beside a statement's own parameters
 * in one compiled query (db/compiled-query.ts).
 */
export type JobParams = { [K in keyof JobRowValues as `job_${K}`]: JobRowValues[K] } & { job_created_at: string };

export function jobParams(job: NewJob, createdAt: string): JobParams {
  const row = jobRowValues(job);
  return {
    job_id: row.id,
    job_kind: row.kind,
    job_payload: row.payload,
    job_run_at: row.run_at,
    job_dedupe_key: row.dedupe_key,
    job_lane: row.lane,
    job_organization_name: row.organization_name,
    job_created_at: createdAt,
  };
}

/**
 * The final insert of a data-modifying WITH statement: a `replace` job (NewJob.replace) inserted once per
 * row of the statement's common table `source`, so the job is enqueued only when an earlier write of the
 * same statement took effect and returned its row.
 */
export function replacingJobInsertFrom<DB extends Database>(creator: QueryCreator<DB>, source: keyof DB & string, p: JobParams) {
  // Kysely's types cannot follow a generic schema through insertInto and selectFrom. Only the number of
  // the common table's rows matters, so it is typed as a table without columns, named `source` in types
  // only: the SQL names the caller's table.
  const qc = creator as unknown as QueryCreator<Database & { source: Record<string, never> }>;
  return qc
    .insertInto('jobs')
    .columns(['id', 'kind', 'payload', 'run_at', 'attempts', 'dedupe_key', 'created_at', 'lane', 'organization_name'])
    .expression((eb) =>
      eb.selectFrom(source as 'source').select([
        sql<string>`${p.job_id}`.as('id'),
        sql<string>`${p.job_kind}`.as('kind'),
        sql<string>`${p.job_payload}`.as('payload'),
        sql<string>`${p.job_run_at}`.as('run_at'),
        sql<number>`0`.as('attempts'),
        sql<string>`${p.job_dedupe_key}`.as('dedupe_key'),
        sql<string>`${p.job_created_at}`.as('created_at'),
        sql<string>`${p.job_lane}`.as('lane'),
        sql<string>`${p.job_organization_name}`.as('organization_name'),
      ]),
    )
    .onConflict(replacePendingJob);
}
