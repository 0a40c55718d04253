import type { Kysely } from 'kysely';
import { affectedRows, compiledOnce, fixed } from '../db/compiled-query.js';
import { newId } from '../identity/ids.js';
import { nowIso } from '../clock.js';
import type { Database, DeliveryAttemptsTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';

export type DeliveryAttemptRow = DeliveryAttemptsTable;

/** Everything one outbound request needs, read in one query. */
export interface DeliveryContext {
  resultId: string;
  resultStatus: string;
  resultUpdatedAt: string;
  stageId: string;
  stage: string;
  stageStatus: string;
  enforcementLevel: string;
  isSpeculative: boolean;
  taskUrl: string;
  /** Write-only secret of the task; null when the task has none (or was deleted). */
  hmacKey: string | null;
  runId: string;
  runMessage: string;
  runCreatedAt: string;
  runCreatedBy: string | null;
  configurationVersionId: string | null;
  planId: string | null;
  workspaceId: string;
  workspaceName: string;
  workspaceWorkingDirectory: string;
  organizationName: string;
}

/** What is known of one attempt (delivery_attempts), as a job run again after a crash finds it. */
export interface RecordedAttempt {
  finishedAt: string | null;
  outcome: DeliveryAttemptRow['outcome'];
  httpStatus: number | null;
  error: string | null;
}

interface ContextRow {
  result_id: string;
  result_status: string;
  result_updated_at: string;
  enforcement_level: string;
  is_speculative: number;
  task_url: string;
  stage: string;
  stage_id: string;
  stage_status: string;
  hmac_key: string | null;
  run_id: string;
  run_message: string;
  run_created_at: string;
  created_by_name: string | null;
  configuration_version_id: string | null;
  plan_id: string | null;
  workspace_id: string;
  workspace_name: string;
  working_directory: string;
  organization_name: string;
}

function toContext(row: ContextRow): DeliveryContext {
  return {
    resultId: row.result_id,
    resultStatus: row.result_status,
    resultUpdatedAt: row.result_updated_at,
    stageId: row.stage_id,
    stage: row.stage,
    stageStatus: row.stage_status,
    enforcementLevel: row.enforcement_level,
    isSpeculative: Number(row.is_speculative) === 1,
    taskUrl: row.task_url,
    hmacKey: row.hmac_key ?? null,
    runId: row.run_id,
    runMessage: row.run_message,
    runCreatedAt: row.run_created_at,
    runCreatedBy: row.created_by_name,
    configurationVersionId: row.configuration_version_id,
    planId: row.plan_id ?? null,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    workspaceWorkingDirectory: row.working_directory,
    organizationName: row.organization_name,
  };
}

/** SQL of run task delivery: the context of a request, attempts, and access token digests. */
export class DeliveryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // The statements of every delivery and callback, compiled once (db/compiled-query.ts).
  private readonly contextWithAttemptQuery = compiledOnce((p: { resultId: string; attempt: number }) =>
    this.contextQuery(p.resultId)
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
      .onConflict((oc) =>
        oc.columns(['task_result_id', 'attempt']).doUpdateSet((eb) => ({ started_at: eb.ref('excluded.started_at'), url: eb.ref('excluded.url') })),
      )
      .returning('id'),
  );
  private readonly attemptFinish = compiledOnce(
    (p: { id: string; finishedAt: string; outcome: 'accepted' | 'rejected' | 'network_error'; httpStatus: number | null; error: string | null; durationMs: number }) =>
      this.db
        .updateTable('delivery_attempts')
        .set({ finished_at: p.finishedAt, outcome: p.outcome, http_status: p.httpStatus, error: p.error, duration_ms: p.durationMs })
        .where('id', '=', p.id),
  );
  private readonly tokenOnPendingResult = compiledOnce((p: { tokenHash: string; resultId: string }) =>
    this.db.updateTable('task_results').set({ access_token_hash: p.tokenHash }).where('id', '=', p.resultId).where('status', '=', fixed('pending')),
  );
  private readonly tokenInsert = compiledOnce((p: { tokenHash: string; resultId: string; runId: string; createdAt: string }) =>
    this.db.insertInto('task_result_access_tokens').values({ token_hash: p.tokenHash, task_result_id: p.resultId, run_id: p.runId, created_at: p.createdAt }),
  );
  private readonly tokenQuery = compiledOnce((p: { tokenHash: string }) =>
    this.db
      .selectFrom('task_result_access_tokens as a')
      .innerJoin('task_results as r', 'r.id', 'a.task_result_id')
      .select(['a.token_hash', 'a.task_result_id', 'a.run_id', 'r.status as result_status'])
      .where('a.token_hash', '=', p.tokenHash),
  );

  async context(resultId: string): Promise<DeliveryContext | undefined> {
    const row = await this.contextQuery(resultId).executeTakeFirst();
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

  private contextQuery(resultId: string) {
    return this.db
      .selectFrom('task_results as r')
      .innerJoin('task_stages as s', 's.id', 'r.task_stage_id')
      .innerJoin('runs', 'runs.id', 'r.run_id')
      .innerJoin('workspaces as w', 'w.id', 'runs.workspace_id')
      .leftJoin('tasks as t', 't.id', 'r.task_id')
      .leftJoin('plans as p', 'p.run_id', 'r.run_id')
      .select([
        'r.id as result_id', 'r.status as result_status', 'r.updated_at as result_updated_at', 'r.enforcement_level',
        'r.is_speculative', 'r.task_url', 'r.stage', 's.id as stage_id', 's.status as stage_status', 't.hmac_key',
        'runs.id as run_id', 'runs.message as run_message', 'runs.created_at as run_created_at', 'runs.created_by_name',
        'runs.configuration_version_id', 'p.id as plan_id', 'w.id as workspace_id', 'w.name as workspace_name',
        'w.working_directory', 'w.organization_name',
      ])
      .where('r.id', '=', resultId);
  }

  /** The current status of a result, read just before a request goes out. */
  async resultStatus(resultId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('task_results').select('status').where('id', '=', resultId).executeTakeFirst();
    return row?.status;
  }

  attemptsOf(resultId: string): Promise<DeliveryAttemptRow[]> {
    return this.db.selectFrom('delivery_attempts').selectAll().where('task_result_id', '=', resultId).orderBy('attempt').execute();
  }

  /** Records that attempt `n` is going out; after a crash mid-request the same row is reused (one upsert). */
  async startAttempt(resultId: string, attempt: number, url: string, executor: Executor = this.db): Promise<string> {
    const { rows } = await this.attemptStart(executor, { id: newId('da'), resultId, attempt, url, startedAt: nowIso() });
    return rows[0]!.id;
  }

  async finishAttempt(
    id: string,
    fields: { outcome: 'accepted' | 'rejected' | 'network_error'; httpStatus: number | null; error: string | null; durationMs: number },
    executor: Executor = this.db,
  ): Promise<void> {
    await this.attemptFinish(executor, {
      id,
      finishedAt: nowIso(),
      outcome: fields.outcome,
      httpStatus: fields.httpStatus,
      error: fields.error?.slice(0, 2000) ?? null,
      durationMs: Math.round(fields.durationMs),
    });
  }

  /**
   * Stores the digest of a new token (the newest also on the result row; the token itself is never
   * written) for a result that is still `pending`; else nothing is written and the answer is false. The
   * result row is written first, conditionally, so that write is also the status check.
   */
  async insertAccessTokenIfPending(executor: Executor, tokenHash: string, resultId: string, runId: string): Promise<boolean> {
    if ((await affectedRows(this.tokenOnPendingResult(executor, { tokenHash, resultId }))) === 0) return false;
    await this.tokenInsert(executor, { tokenHash, resultId, runId, createdAt: nowIso() });
    return true;
  }

  async findAccessToken(tokenHash: string): Promise<{ token_hash: string; task_result_id: string; run_id: string; result_status: string } | undefined> {
    return (await this.tokenQuery(this.db, { tokenHash })).rows[0];
  }
}
