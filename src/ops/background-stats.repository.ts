import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The job table by kind, as /metrics reports it (ops/background-metrics.ts). */
export interface JobKindStats {
  kind: string;
  /** Due and free to claim. */
  due: number;
  /** Not due yet (retries, deadlines). */
  scheduled: number;
  /** Held by a node's lease now. */
  running: number;
  /** Whose last attempt failed (they wait for a retry). */
  failing: number;
  /** run_at of the oldest due job, ISO; null when none is due. */
  oldestDueAt: string | null;
}

/** Counts for monitoring, read at scrape time: one grouped query per table, both dialects alike. */
export class BackgroundStatsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async jobs(now: string): Promise<JobKindStats[]> {
    const free = sql`(locked_until is null or locked_until < ${now})`;
    const result = await sql<{ kind: string; due: number; scheduled: number; running: number; failing: number; oldest_due_at: string | null }>`
      select kind,
        sum(case when run_at <= ${now} and ${free} then 1 else 0 end) as due,
        sum(case when run_at > ${now} and ${free} then 1 else 0 end) as scheduled,
        sum(case when not ${free} then 1 else 0 end) as running,
        sum(case when last_error is not null then 1 else 0 end) as failing,
        min(case when run_at <= ${now} and ${free} then run_at end) as oldest_due_at
      from jobs group by kind`.execute(this.db);
    return result.rows.map((row) => ({
      kind: row.kind,
      due: Number(row.due),
      scheduled: Number(row.scheduled),
      running: Number(row.running),
      failing: Number(row.failing),
      oldestDueAt: row.oldest_due_at,
    }));
  }

  async policyEvaluationsByStatus(): Promise<Array<{ status: string; count: number }>> {
    const rows = await this.db.selectFrom('policy_evaluations').select(['status', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('status').execute();
    return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
  }

  async runsByStatus(): Promise<Array<{ status: string; count: number }>> {
    const rows = await this.db.selectFrom('runs').select(['status', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('status').execute();
    return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
  }
}
