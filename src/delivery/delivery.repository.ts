import { sql, type Kysely, type OnConflictBuilder, type QueryCreator } from 'kysely';
import { affectedRows, compiledOnce, fixed } from '../db/compiled-query.js';
import type { Dialect } from '../db/database.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/clock.js';
import type { Database, DeliveryAttemptsTable } from '../db/schema.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import { jobParams, replacingJobInsertFrom, type JobParams } from '../jobs/job-statements.js';
import { openResultRefresh, pendingResultTokenWrite } from '../taskstages/task-result-statements.js';
import type { ResultInOrganization } from '../taskstages/task-stages.repository.js';
import { contextQuery, toContext, type DeliveryContext } from './delivery-context.js';

export type DeliveryAttemptRow = DeliveryAttemptsTable;

/** How an attempt ended, as delivery_attempts records it. */
export interface AttemptEnd {
  outcome: 'accepted' | 'rejected' | 'network_error';
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** What is known of one attempt (delivery_attempts), as a job run again after a crash finds it. */
export interface RecordedAttempt {
  finishedAt: string | null;
  outcome: DeliveryAttemptRow['outcome'];
  httpStatus: number | null;
  error: string | null;
}

/** A type, not an interface: compiledOnce takes a record of parameters. */
type AttemptEndParams = {
  id: string;
  finishedAt: string;
  outcome: AttemptEnd['outcome'];
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
};

/** An attempt recorded before a crash mid-request is recorded again in the same row: new start, same number. */
function reuseAttemptRow(oc: OnConflictBuilder<Database, 'delivery_attempts'>) {
  return oc.columns(['task_result_id', 'attempt']).doUpdateSet((eb) => ({ started_at: eb.ref('excluded.started_at'), url: eb.ref('excluded.url') }));
}

function attemptEndParams(id: string, end: AttemptEnd): AttemptEndParams {
  return {
    id,
    finishedAt: nowIso(),
    outcome: end.outcome,
    httpStatus: end.httpStatus,
    error: end.error?.slice(0, 2000) ?? null,
    durationMs: Math.round(end.durationMs),
  };
}

/**
 * SQL of run task delivery: the context of a request, attempts, and access token digests.
 *
 * The two writes of every delivery (before the request: token and attempt record; after it: the
 * answer, and for an accepted one the fresh callback deadline) are one statement each on PostgreSQL,
 * where data-modifying WITH makes them atomic without BEGIN and COMMIT: one round trip instead of five
 * or six. SQLite has no data-modifying WITH, and its statements cost no round trip, so there they are
 * transactions of plain statements.
 */
export class DeliveryRepository {
  /** Whether startDelivery and finishAcceptedAttempt are single statements (PostgreSQL). */
  private readonly writesInOneStatement: boolean;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
  ) {
    this.writesInOneStatement = dialect === 'postgres';
  }

  // The statements of every delivery and callback, compiled once (db/compiled-query.ts).
  private readonly contextWithAttemptQuery = compiledOnce((p: { resultId: string; attempt: number }) =>
    contextQuery(this.db, p.resultId)
      .leftJoin('delivery_attempts as da', (join) => join.onRef('da.task_result_id', '=', 'r.id').on('da.attempt', '=', p.attempt))
      .select(['da.id as attempt_id', 'da.finished_at as attempt_finished_at', 'da.outcome as attempt_outcome', 'da.http_status as attempt_http_status', 'da.error as attempt_error']),
  );
  private readonly attemptStart = compiledOnce((p: { id: string; resultId: string; attempt: number; url: string; startedAt: string }) =>
    this.db
      .insertInto('delivery_attempts')
      .values({
        id: p.id, task_result_id: p.resultId, attempt: p.attempt, url: p.url, started_at: p.startedAt, finished_at: fixed(null), outcome: fixed(null),
        http_status: fixed(null), error: fixed(null), duration_ms: fixed(null),
      })
      .onConflict(reuseAttemptRow)
      .returning('id'),
  );
  private readonly attemptFinish = compiledOnce((p: AttemptEndParams) => this.attemptFinishWrite(this.db, p));
  private readonly tokenOnPendingResult = compiledOnce((p: { tokenHash: string; resultId: string }) => pendingResultTokenWrite(this.db, p));
  private readonly tokenInsert = compiledOnce((p: { tokenHash: string; resultId: string; runId: string; createdAt: string }) =>
    this.db.insertInto('task_result_access_tokens').values({ token_hash: p.tokenHash, task_result_id: p.resultId, run_id: p.runId, created_at: p.createdAt }),
  );
  /**
   * A token with its result as stored and the result's organization: a `running` callback writes from
   * this row if it is still as read (ResultReports.markRunning), so it needs no read of its own.
   */
  private readonly tokenQuery = compiledOnce((p: { tokenHash: string }) =>
    this.db
      .selectFrom('task_result_access_tokens as a')
      .innerJoin('task_results as r', 'r.id', 'a.task_result_id')
      .innerJoin('runs', 'runs.id', 'r.run_id')
      .innerJoin('workspaces as w', 'w.id', 'runs.workspace_id')
      .selectAll('r')
      .select(['a.token_hash', 'a.task_result_id', 'r.status as result_status', 'w.organization_name'])
      .where('a.token_hash', '=', p.tokenHash),
  );

  /**
   * PostgreSQL's startDelivery: the token digest goes on the result only while it is `pending` (that
   * conditional write is the last look), and the token row and the attempt record are inserted from its
   * RETURNING, so nothing is written for a result that is no longer pending.
   */
  private readonly deliveryStart = compiledOnce((p: { tokenHash: string; resultId: string; attemptId: string; attempt: number; url: string; now: string }) =>
    this.db
      .with('pending', (db) => pendingResultTokenWrite(db, p).returning(['id', 'run_id']))
      .with('token', (db) =>
        db
          .insertInto('task_result_access_tokens')
          .columns(['token_hash', 'task_result_id', 'run_id', 'created_at'])
          .expression((eb) => eb.selectFrom('pending').select([sql<string>`${p.tokenHash}`.as('token_hash'), 'id', 'run_id', sql<string>`${p.now}`.as('created_at')])),
      )
      .insertInto('delivery_attempts')
      .columns(['id', 'task_result_id', 'attempt', 'url', 'started_at'])
      .expression((eb) =>
        eb.selectFrom('pending').select([
          sql<string>`${p.attemptId}`.as('id'),
          'id as task_result_id',
          sql<number>`cast(${p.attempt} as integer)`.as('attempt'),
          sql<string>`${p.url}`.as('url'),
          sql<string>`${p.now}`.as('started_at'),
        ]),
      )
      .onConflict(reuseAttemptRow)
      .returning('id'),
  );
  /**
   * PostgreSQL's finishAcceptedAttempt: the attempt's end, and unless the result is final meanwhile, its
   * callback deadline counted from now (updated_at) with the timeout job moved to it (the same writes as
   * TaskStageRunner.markDelivered).
   */
  private readonly acceptedAttemptFinish = compiledOnce(
    (p: AttemptEndParams & { resultId: string; now: string } & JobParams) =>
      // The timeout job is enqueued only if the result was refreshed (its row in `refreshed`).
      replacingJobInsertFrom(
        this.db.with('attempt', (db) => this.attemptFinishWrite(db, p)).with('refreshed', (db) => openResultRefresh(db, p)),
        'refreshed',
        p,
      ),
  );

  async context(resultId: string): Promise<DeliveryContext | undefined> {
    const row = await contextQuery(this.db, resultId).executeTakeFirst();
    return row ? toContext(row) : undefined;
  }

  /** The context and, in the same statement, attempt `attempt` as recorded so far (a job run again after a crash finds it). */
  async contextWithAttempt(resultId: string, attempt: number): Promise<{ context: DeliveryContext; recorded: RecordedAttempt | undefined } | undefined> {
    const row = (await this.contextWithAttemptQuery(this.db, { resultId, attempt })).rows[0];
    if (!row) return undefined;
    const recorded = row.attempt_id
      ? { finishedAt: row.attempt_finished_at ?? null, outcome: row.attempt_outcome ?? null, httpStatus: row.attempt_http_status ?? null, error: row.attempt_error ?? null }
      : undefined;
    return { context: toContext(row), recorded };
  }

  /** The current status of a result, read just before a request goes out. */
  async resultStatus(resultId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('task_results').select('status').where('id', '=', resultId).executeTakeFirst();
    return row?.status;
  }

  /**
   * Attempt `attempt` is going out with a new access token: the token's digest is stored (the newest also
   * on the result row; the token itself is never written) and the attempt recorded (after a crash
   * mid-request the same row is reused), only while the result is `pending`. Answers the attempt's id, or
   * undefined when the result is no longer pending, and then nothing is written. The result row is written
   * first, conditionally, so that write is also the status check.
   */
  async startDelivery(p: { resultId: string; runId: string; tokenHash: string; attempt: number; url: string }): Promise<string | undefined> {
    const now = nowIso();
    const attemptId = newId('da');
    if (this.writesInOneStatement) {
      const { rows } = await this.deliveryStart(this.db, { tokenHash: p.tokenHash, resultId: p.resultId, attemptId, attempt: p.attempt, url: p.url, now });
      return rows[0]?.id;
    }
    return this.db.transaction().execute(async (trx) => {
      if ((await affectedRows(this.tokenOnPendingResult(trx, { tokenHash: p.tokenHash, resultId: p.resultId }))) === 0) return undefined;
      await this.tokenInsert(trx, { tokenHash: p.tokenHash, resultId: p.resultId, runId: p.runId, createdAt: now });
      const { rows } = await this.attemptStart(trx, { id: attemptId, resultId: p.resultId, attempt: p.attempt, url: p.url, startedAt: now });
      return rows[0]!.id;
    });
  }

  async finishAttempt(id: string, end: AttemptEnd, executor: Executor = this.db): Promise<void> {
    await this.attemptFinish(executor, attemptEndParams(id, end));
  }

  /**
   * finishAttempt of an accepted attempt together with what TaskStageRunner.markDelivered writes, atomically:
   * unless the result is final, its callback deadline counts from `now` and `timeoutJob` (a replacing job)
   * is enqueued. PostgreSQL (writesInOneStatement): the same writes inlined in one statement; the jobs
   * table's NOTIFY trigger (migration 007) wakes the workers, as for any enqueue. SQLite: a transaction of
   * the attempt's end and `markDelivered` itself.
   */
  async finishAcceptedAttempt(
    id: string,
    end: AttemptEnd,
    refresh: { resultId: string; now: string; timeoutJob: NewJob },
    markDelivered: (trx: Executor) => Promise<void>,
  ): Promise<void> {
    if (!this.writesInOneStatement) {
      await this.db.transaction().execute(async (trx) => {
        await this.finishAttempt(id, end, trx);
        await markDelivered(trx);
      });
      return;
    }
    await this.acceptedAttemptFinish(this.db, {
      ...attemptEndParams(id, end),
      resultId: refresh.resultId,
      now: refresh.now,
      ...jobParams(refresh.timeoutJob, refresh.now),
    });
  }

  private attemptFinishWrite(executor: Executor | QueryCreator<Database>, p: AttemptEndParams) {
    return executor
      .updateTable('delivery_attempts')
      .set({ finished_at: p.finishedAt, outcome: p.outcome, http_status: p.httpStatus, error: p.error, duration_ms: p.durationMs })
      .where('id', '=', p.id);
  }

  async findAccessToken(tokenHash: string): Promise<(ResultInOrganization & { token_hash: string; task_result_id: string; result_status: string }) | undefined> {
    return (await this.tokenQuery(this.db, { tokenHash })).rows[0];
  }
}
