import { sql, type Kysely, type OnConflictBuilder, type Transaction } from 'kysely';
import { nowIso } from '../core/clock.js';
import { compiledOnce, compiledPerShape, fixed } from '../db/compiled-query.js';
import { newId } from '../core/ids.js';
import type { Dialect } from '../db/database.js';
import type { Database, JobsTable } from '../db/schema.js';
import { FairClaims, type ClaimedRow } from './fair-claim.js';
import { rawCompilable } from './raw-compilable.js';
import type { JobLane } from './job-lanes.js';

export type Executor = Kysely<Database> | Transaction<Database>;

export interface NewJob {
  kind: string;
  payload: unknown;
  /** Not before this time; now when omitted. */
  runAt?: Date;
  /** While a job with this key exists, enqueueing another with the same key does nothing… */
  dedupeKey?: string;
  /**
   * …unless `replace`: then the existing job takes this one's payload and time and is unlocked. A worker
   * running it at that moment finishes, but cannot delete it (its lease is gone), so the job stays for
   * its new time: one pending job per key, never lost.
   */
  replace?: boolean;
  /** The lane that runs it (job-lanes.ts); `work` when omitted. */
  lane?: JobLane;
  /**
   * The organization it works for (its run's, its workspace's): every lane shares its slots fairly between
   * organizations (fair-claim.ts). Required, so that no job is enqueued outside every share by oversight:
   * work for no organization says NO_ORGANIZATION.
   */
  organizationName: string;
}

/**
 * The organization name of a job that works for no organization in particular (maintenance), and of the jobs a
 * node of an earlier release enqueued without one (a rolling upgrade). It is claimed as one more organization,
 * in turn with the others, so such jobs neither starve nor jump the queue.
 */
export const NO_ORGANIZATION = '';

export interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  /** NO_ORGANIZATION when the job works for no organization in particular. */
  organizationName: string;
  /** Why its last attempt failed; null when none failed (a second attempt without one was taken over). */
  lastError: string | null;
}

/** A lane's share per organization, and what each organization runs on this node now (fair-claim.ts). */
export interface ClaimShares {
  perOrganization: number;
  held: ReadonlyMap<string, number>;
}

/** Also named in migration 007's trigger function. */
export const NOTIFY_CHANNEL = 'teamstage_jobs';

function jobId(): string {
  return newId('job');
}

/** The columns a new job's row takes from its NewJob (the rest start empty). */
export type JobRowValues = {
  id: string;
  kind: string;
  payload: string;
  run_at: string;
  dedupe_key: string | null;
  lane: JobLane;
  organization_name: string;
};

export function jobRowValues(job: NewJob): JobRowValues {
  return {
    id: jobId(),
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? null),
    run_at: (job.runAt ?? new Date()).toISOString(),
    dedupe_key: job.dedupeKey ?? null,
    lane: job.lane ?? 'work',
    organization_name: job.organizationName,
  };
}

/** The whole row of a new job, for a statement that inserts it with other rows (db/multi-table-insert.ts). */
export function newJobRow(job: NewJob): JobsTable {
  return { ...jobRowValues(job), attempts: 0, locked_by: null, locked_until: null, last_error: null, created_at: nowIso() };
}

/**
 * The conflict clause of a `replace` job: the pending job with its key takes its payload and time and is
 * unlocked (see NewJob.replace). For statements that insert a job of their own (job-statements.ts).
 */
export function replacePendingJob(oc: OnConflictBuilder<Database, 'jobs'>) {
  return oc.column('dedupe_key').doUpdateSet((eb) => ({
    run_at: eb.ref('excluded.run_at'),
    payload: eb.ref('excluded.payload'),
    attempts: fixed(0),
    locked_by: fixed(null),
    locked_until: fixed(null),
  }));
}

/**
 * The SQL of the job table. The table is the truth between nodes: a job exists until a handler finished
 * it; a claim is a lease (locked_by, locked_until) that expires, so a killed node's jobs are taken over.
 */
export class JobQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /**
     * SQLite: called after jobs are enqueued, with when the earliest of each lane becomes due. PostgreSQL: never
     * (the commit's NOTIFY says the same: see enqueueAll).
     */
    private readonly onEnqueued: (due: ReadonlyMap<JobLane, Date>) => void,
  ) {
    this.fairClaim = new FairClaims(db, dialect);
  }

  /**
   * Every job is inserted and deleted through these two, so they are compiled once per shape
   * (db/compiled-query.ts): the number of rows, and how a dedupe key conflict is handled.
   */
  private readonly insertStatement = compiledPerShape(
    (shape: { rows: number; onConflict: 'none' | 'skip' | 'replace' }) => `${shape.rows}:${shape.onConflict}`,
    (shape, p: Record<string, unknown>) => {
      const rows = Array.from({ length: shape.rows }, (_, i) => ({
        id: p[`id${i}`] as string,
        kind: p[`kind${i}`] as string,
        payload: p[`payload${i}`] as string,
        run_at: p[`runAt${i}`] as string,
        attempts: fixed(0),
        locked_by: fixed(null),
        locked_until: fixed(null),
        dedupe_key: p[`dedupeKey${i}`] as string | null,
        last_error: fixed(null),
        created_at: p.now as string,
        lane: p[`lane${i}`] as string,
        organization_name: p[`organizationName${i}`] as string,
      }));
      const insert = this.db.insertInto('jobs').values(rows);
      if (shape.onConflict === 'none') return insert;
      return insert.onConflict((oc) => (shape.onConflict === 'replace' ? replacePendingJob(oc) : oc.column('dedupe_key').doNothing()));
    },
  );
  private readonly deleteStatement = compiledPerShape(
    (count: number) => String(count),
    (count, p: Record<string, string>) =>
      this.db
        .deleteFrom('jobs')
        .where('id', 'in', Array.from({ length: count }, (_, i) => p[`id${i}`]!))
        .where('locked_by', '=', p.nodeId!),
  );

  /**
   * Inserts the job with the caller's executor, so it commits or rolls back with the state change it
   * belongs to. PostgreSQL: the insert's trigger NOTIFYs in the same transaction (migration 007),
   * delivered only on commit, waking every node's worker. SQLite: one connection serializes queries,
   * so a local wake-up sees the committed row.
   */
  async enqueue(executor: Executor, job: NewJob): Promise<void> {
    await this.enqueueAll(executor, [job]);
  }

  /**
   * `enqueue` for several jobs, in one INSERT (one round trip) for all that do not `replace`. Replacing
   * jobs get a statement each: PostgreSQL refuses an ON CONFLICT DO UPDATE that meets its key twice.
   */
  async enqueueAll(executor: Executor, jobs: readonly NewJob[]): Promise<void> {
    const kept = jobs.filter((job) => !job.replace);
    if (kept.length > 0) await this.insert(executor, kept, false);
    for (const job of jobs.filter((candidate) => candidate.replace)) await this.insert(executor, [job], true);
    if (jobs.length === 0) return;
    const due = new Map<JobLane, Date>();
    for (const job of jobs) {
      const lane = job.lane ?? 'work';
      const at = job.runAt ?? new Date(0);
      const earliest = due.get(lane);
      if (!earliest || at < earliest) due.set(lane, at);
    }
    // SQLite: told at once. The lanes' wake-up already waits for the end of this event-loop turn
    // (LaneLoop.wake), and deferring this too cost a second turn, a whole poll for I/O under load, on every
    // hop of a run's way to its task request (issue 39's gate latency); a claim cannot overtake the
    // enqueueing transaction, it waits for the connection the transaction holds.
    // PostgreSQL: the commit's NOTIFY (migration 011's trigger) is the wake-up, on this node as on the others,
    // and it says the same (lane, due). A wake-up of our own as well was a second claim per enqueue: made
    // before the commit it found nothing (the enqueue is mostly one statement of a longer transaction), made
    // after it the NOTIFY's claim found nothing; each an empty claim, a statement and a round trip, and the
    // lane busy with it when the job became claimable.
    if (this.dialect === 'sqlite') this.onEnqueued(due);
  }

  private async insert(executor: Executor, jobs: readonly NewJob[], replace: boolean): Promise<void> {
    const params: Record<string, unknown> = { now: nowIso() };
    jobs.forEach((job, i) => {
      const row = jobRowValues(job);
      params[`id${i}`] = row.id;
      params[`kind${i}`] = row.kind;
      params[`payload${i}`] = row.payload;
      params[`runAt${i}`] = row.run_at;
      params[`dedupeKey${i}`] = row.dedupe_key;
      params[`lane${i}`] = row.lane;
      params[`organizationName${i}`] = row.organization_name;
    });
    // Rows without a key never conflict (NULLs are distinct), so one clause serves a mixed batch.
    const onConflict = !jobs.some((job) => job.dedupeKey) ? 'none' : replace ? 'replace' : 'skip';
    await this.insertStatement(executor, { rows: jobs.length, onConflict }, params);
  }

  /**
   * Claims up to `limit` due jobs of `lane` whose lease is free or expired; SKIP LOCKED lets nodes claim
   * side by side. With `shares`, in turn across organizations within their share (fair-claim.ts);
   * without, in time order.
   */
  async claim(nodeId: string, limit: number, leaseMs: number, lane: JobLane = 'work', shares?: ClaimShares): Promise<ClaimedJob[]> {
    const now = new Date();
    const nowText = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const result =
      shares === undefined
        ? await this.claimInTimeOrder(this.db, { nodeId, until, lane, now: nowText, limit })
        : await this.fairClaim.claim({ nodeId, lane, limit, ...shares, now: nowText, until });
    return result.rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      payload: JSON.parse(row.payload),
      attempts: Number(row.attempts),
      organizationName: row.organization_name,
      lastError: row.last_error,
    }));
  }

  /** A lane's due jobs in time order (a lane without shares). Compiled once: the lanes claim on every wake-up. */
  private readonly claimInTimeOrder = compiledOnce((p: { nodeId: string; until: string; lane: string; now: string; limit: number }) =>
    rawCompilable(
      this.db,
      sql<ClaimedRow>`
        update jobs set locked_by = ${p.nodeId}, locked_until = ${p.until}, attempts = attempts + 1
        where id in (
          select id from jobs
          where lane = ${p.lane} and run_at <= ${p.now} and (locked_until is null or locked_until < ${p.now})
          order by run_at limit ${p.limit} ${this.dialect === 'postgres' ? sql`for update skip locked` : sql``}
        )
        returning id, kind, payload, attempts, organization_name, last_error`,
    ),
  );

  private readonly fairClaim: FairClaims;

  /** Done: the rows go. Only the lease holder removes them; a job whose lease was lost stays for its new owner. */
  async complete(nodeId: string, ...ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deleteStatement(this.db, ids.length, { nodeId, ...Object.fromEntries(ids.map((id, i) => [`id${i}`, id])) });
  }

  /**
   * Extends the leases this node holds on `ids` to `until` (a lane whose jobs may outlive a lease renews them
   * while they run: job-lanes.ts). A lease already lost is not taken back: only the holder's rows change.
   */
  async renewLeases(nodeId: string, ids: readonly string[], until: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('jobs').set({ locked_until: until.toISOString() }).where('id', 'in', ids).where('locked_by', '=', nodeId).execute();
  }

  async retryLater(nodeId: string, id: string, delayMs: number, error: string): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ locked_by: null, locked_until: null, run_at: new Date(Date.now() + delayMs).toISOString(), last_error: error.slice(0, 2000) })
      .where('id', '=', id)
      .where('locked_by', '=', nodeId)
      .execute();
  }

  /**
   * Deletes the pending jobs with these dedupe keys (a deadline that can no longer matter: its result is
   * final), so they neither run for nothing nor stay counted as `scheduled`. A job a node holds now is left
   * to finish (its handler finds nothing to do).
   */
  async cancel(executor: Executor, dedupeKeys: readonly string[]): Promise<void> {
    if (dedupeKeys.length === 0) return;
    await executor.deleteFrom('jobs').where('dedupe_key', 'in', dedupeKeys).where('locked_by', 'is', null).execute();
  }

  /** Gives back every lease this node holds (graceful shutdown), so other nodes need not wait for expiry. */
  async releaseAll(nodeId: string): Promise<number> {
    const [result] = await this.db.updateTable('jobs').set({ locked_by: null, locked_until: null }).where('locked_by', '=', nodeId).execute();
    const released = Number(result?.numUpdatedRows ?? 0);
    // Other nodes take the released jobs now rather than at their next poll (a stopping node's hand-back).
    if (released > 0 && this.dialect === 'postgres') await sql`select pg_notify(${NOTIFY_CHANNEL}, '')`.execute(this.db);
    return released;
  }

  /**
   * When the next job of `lane` due after `after` becomes due, to sleep exactly until then. Jobs due
   * already that a claim at `after` left behind wait for a slot of their organization's share, and a
   * finishing job wakes the lane for them: counting them would wake it at once, again and again.
   * ORDER BY ... LIMIT 1 walks the (lane, run_at) index from `after` and stops at the first free job
   * (MIN() with a WHERE would scan them all).
   */
  async nextRunAt(lane: JobLane = 'work', after: Date = new Date(0)): Promise<Date | undefined> {
    const { rows } = await this.nextRunAtQuery(this.db, { lane, after: after.toISOString(), now: nowIso() });
    return rows[0] ? new Date(rows[0].run_at) : undefined;
  }

  private readonly nextRunAtQuery = compiledOnce((p: { lane: string; after: string; now: string }) =>
    this.db
      .selectFrom('jobs')
      .select('run_at')
      .where('lane', '=', p.lane)
      .where('run_at', '>', p.after)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', p.now)]))
      .orderBy('run_at')
      .limit(fixed(1)),
  );

  async count(kind?: string): Promise<number> {
    let query = this.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n'));
    if (kind) query = query.where('kind', '=', kind);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }
}
