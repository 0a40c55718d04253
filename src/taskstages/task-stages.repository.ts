import { compareStages } from '../shared/stage-order.js';
import type { Expression, ExpressionBuilder, Kysely, QueryCreator } from 'kysely';
import { replacingJobInsertFrom, type JobParams } from '../jobs/job-statements.js';
import { affectedRows, compiledOnce, compiledPerShape, definedColumns, fixed } from '../db/compiled-query.js';
import type { Dialect } from '../db/database.js';
import type { Database, TaskResultOutcomesTable, TaskResultsTable, TaskStageOverridesTable, TaskStagesTable } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import type { ResultStatus, StageStatus } from '../shared/task-stage-statuses.js';

export type TaskStageRow = TaskStagesTable;
export type TaskResultRow = TaskResultsTable;
/**
 * A stage or result as read under its lock, with the organization of its run's workspace, read in the same
 * statement: the jobs its writes enqueue (the run's next step, a callback deadline) go in that organization's
 * share of the work lane (jobs/job-lanes.ts).
 */
export type StageInOrganization = TaskStageRow & { organization_name: string };
export type ResultInOrganization = TaskResultRow & { organization_name: string };
export type OutcomeRow = TaskResultOutcomesTable;
/** What the override rule needs of a stage's run beyond the stage (override-facts.ts). */
export interface RunApprovalSettings {
  /** The run's workspace: earlier approvers' team access to it is read again when they are counted. */
  workspaceId: string;
  authorUserId: string | null;
  preventSelfApproval: boolean;
}

export type OverrideRow = TaskStageOverridesTable;

/** Names one task stage inside a statement on `task_stages`: by its id, or as the stage of a result. */
type StageSelector = (eb: ExpressionBuilder<Database, 'task_stages'>) => Expression<string>;

/** The organization of the run a stage belongs to, as a column of a statement on `task_stages`. */
const stageOrganization = (eb: ExpressionBuilder<Database, 'task_stages'>) =>
  eb.selectFrom('runs').innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id').select('workspaces.organization_name')
    .whereRef('runs.id', '=', 'task_stages.run_id').$asScalar().$notNull().as('organization_name');

/** The same for a result, on `task_results`. */
const resultOrganization = (eb: ExpressionBuilder<Database, 'task_results'>) =>
  eb.selectFrom('runs').innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id').select('workspaces.organization_name')
    .whereRef('runs.id', '=', 'task_results.run_id').$asScalar().$notNull().as('organization_name');

const stageWithId = (stageId: string): StageSelector => (eb) => eb.val(stageId);

const stageOfResult = (resultId: string): StageSelector => (eb) =>
  eb.selectFrom('task_results').select('task_stage_id').where('task_results.id', '=', resultId).$asScalar();

/** The update of resultWriteAsSeen, on the query creator it runs in (the Kysely instance or a `with`). */
function resultWriteIfAsSeen<DB extends Database>(creator: QueryCreator<DB>, columns: readonly string[], p: Record<string, unknown>) {
  return (creator as unknown as QueryCreator<Database>)
    .updateTable('task_results')
    .set(Object.fromEntries(columns.map((column) => [column, p[column]])))
    .where('id', '=', p.id as string)
    .where('status', '=', p.seenStatus as ResultStatus)
    .where('status_timestamps', '=', p.seenTimestamps as string);
}

/** Where a run lives: enough to enter its organization and check the caller. */
export interface RunPlace {
  runId: string;
  workspaceId: string;
  organizationName: string;
}

/**
 * SQL of task stages, task results, outcomes and overrides. Every status write is conditional on the
 * current status (`where status in (…)`) and reports whether a row changed, so a final status is
 * written once and the caller acts only when it won.
 */
export class TaskStagesRepository {
  /**
   * Whether `lockStage` takes a row lock. On SQLite it need not: Kysely runs every query on one connection
   * and a transaction holds it to the end, so no other transaction can interleave with one that reads.
   */
  readonly locksRows: boolean;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
  ) {
    this.locksRows = dialect === 'postgres';
  }

  // The statements of delivery, callbacks and settling, compiled once (db/compiled-query.ts).
  private readonly stageById = compiledOnce((p: { id: string }) => this.db.selectFrom('task_stages').selectAll().where('id', '=', p.id));
  /** SQLite's lockedStageOfResult: it takes no lock (see locksRows), so a read. */
  private readonly stageOfResultById = compiledOnce((p: { id: string }) =>
    this.db.selectFrom('task_stages').selectAll().select(stageOrganization).where('id', '=', stageOfResult(p.id)),
  );
  private readonly stageInOrganizationById = compiledOnce((p: { id: string }) =>
    this.db.selectFrom('task_stages').selectAll().select(stageOrganization).where('id', '=', p.id),
  );
  private readonly resultById = compiledOnce((p: { id: string }) => this.db.selectFrom('task_results').selectAll().where('id', '=', p.id));
  private readonly resultInOrganizationById = compiledOnce((p: { id: string }) =>
    this.db.selectFrom('task_results').selectAll().select(resultOrganization).where('id', '=', p.id),
  );
  private readonly overrideOfStage = compiledOnce((p: { stageId: string }) =>
    this.db.selectFrom('task_stage_overrides').selectAll().where('task_stage_id', '=', p.stageId),
  );
  private readonly resultsOfStagesQuery = compiledPerShape(
    (count: number) => String(count),
    (count, p: Record<string, string>) =>
      this.db
        .selectFrom('task_results')
        .selectAll()
        .where('task_stage_id', 'in', Array.from({ length: count }, (_, i) => p[`stage${i}`]!))
        .orderBy('created_at')
        .orderBy('id'),
  );
  /** The stage lock's statement (see lockingWrite), naming the stage by id or by one of its results. */
  private readonly lockingWrites = {
    byId: compiledOnce((p: { id: string }) => this.lockingWrite(this.db, stageWithId(p.id))),
    byIdReturning: compiledOnce((p: { id: string }) => this.lockingWrite(this.db, stageWithId(p.id)).returningAll().returning(stageOrganization)),
    ofResult: compiledOnce((p: { id: string }) => this.lockingWrite(this.db, stageOfResult(p.id))),
    ofResultReturning: compiledOnce((p: { id: string }) => this.lockingWrite(this.db, stageOfResult(p.id)).returningAll().returning(stageOrganization)),
  };
  /** Shape: the statuses a conditional write starts from (and, for results, the columns it sets). */
  private readonly stageWrite = compiledPerShape(
    (fromStatuses: readonly StageStatus[]) => fromStatuses.join(','),
    (fromStatuses, p: { id: string; status: StageStatus; status_timestamps: string; updated_at: string }) =>
      this.db
        .updateTable('task_stages')
        .set({ status: p.status, status_timestamps: p.status_timestamps, updated_at: p.updated_at })
        .where('id', '=', p.id)
        .where('status', 'in', fromStatuses.map(fixed)),
  );
  private readonly resultWrite = compiledPerShape(
    (shape: { fromStatuses: readonly ResultStatus[]; columns: readonly string[]; ifUpdatedAt: boolean }) =>
      `${shape.fromStatuses.join(',')}:${shape.columns.join(',')}:${shape.ifUpdatedAt}`,
    (shape, p: Record<string, unknown>) => {
      const write = this.db
        .updateTable('task_results')
        .set(Object.fromEntries(shape.columns.map((column) => [column, p[column]])))
        .where('id', '=', p.id as string)
        .where('status', 'in', shape.fromStatuses.map(fixed));
      return shape.ifUpdatedAt ? write.where('updated_at', '=', p.ifUpdatedAt as string) : write;
    },
  );

  /**
   * A result write that holds only if the result is still as `seen` (its status and status timestamps, what
   * the write's values were derived from): optimistic, for a writer that read the row without a lock.
   */
  private readonly resultWriteAsSeen = compiledPerShape(
    (columns: readonly string[]) => columns.join(','),
    (columns, p: Record<string, unknown>) => resultWriteIfAsSeen(this.db, columns, p),
  );
  /** resultWriteAsSeen with a `replace` job enqueued in the same statement when it held (PostgreSQL). */
  private readonly resultWriteAsSeenWithJob = compiledPerShape(
    (columns: readonly string[]) => columns.join(','),
    (columns, p: Record<string, unknown>) =>
      replacingJobInsertFrom(this.db.with('written', (db) => resultWriteIfAsSeen(db, columns, p).returning('id')), 'written', p as unknown as JobParams).returning('id'),
  );

  /**
   * Writes `changes` on the result only if its status and status timestamps are still `seen`'s; with `job`
   * (PostgreSQL only: a data-modifying WITH), the job is enqueued in the same statement when the write held.
   * Answers whether it held.
   */
  async updateResultAsSeen(
    executor: Executor,
    seen: Pick<TaskResultRow, 'id' | 'status' | 'status_timestamps'>,
    changes: Partial<Pick<TaskResultRow, 'status' | 'status_timestamps' | 'message' | 'url' | 'updated_at'>>,
    job?: JobParams,
  ): Promise<boolean> {
    const columns = definedColumns(changes);
    const p = { ...changes, id: seen.id, seenStatus: seen.status, seenTimestamps: seen.status_timestamps };
    if (!job) return (await affectedRows(this.resultWriteAsSeen(executor, columns, p))) > 0;
    if (!this.locksRows) throw new Error('a result write with its job in one statement needs PostgreSQL');
    return (await this.resultWriteAsSeenWithJob(executor, columns, { ...p, ...job })).rows.length > 0;
  }

  async findStage(id: string, executor: Executor = this.db): Promise<TaskStageRow | undefined> {
    return (await this.stageById(executor, { id })).rows[0];
  }

  async findResult(id: string, executor: Executor = this.db): Promise<TaskResultRow | undefined> {
    return (await this.resultById(executor, { id })).rows[0];
  }

  /** findResult with its run's organization, in the same statement. */
  async findResultInOrganization(id: string, executor: Executor = this.db): Promise<ResultInOrganization | undefined> {
    return (await this.resultInOrganizationById(executor, { id })).rows[0];
  }

  async placeOfRun(runId: string): Promise<RunPlace | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id')
      .select(['runs.id', 'workspaces.id as workspace_id', 'workspaces.organization_name'])
      .where('runs.id', '=', runId)
      .executeTakeFirst();
    return row ? { runId: row.id, workspaceId: row.workspace_id, organizationName: row.organization_name } : undefined;
  }

  /** The stages of a run in run order (pre_plan, post_plan, pre_apply, post_apply). */
  async stagesOfRun(runId: string, offset: number, limit: number): Promise<{ rows: TaskStageRow[]; total: number }> {
    const all = await this.db.selectFrom('task_stages').selectAll().where('run_id', '=', runId).execute();
    all.sort((a, b) => compareStages(a.stage, b.stage) || a.id.localeCompare(b.id));
    return { rows: all.slice(offset, offset + limit), total: all.length };
  }

  /** The stages of several runs, grouped by run in the given order, each run's in run order. */
  async stagesOfRuns(runIds: readonly string[]): Promise<TaskStageRow[]> {
    if (runIds.length === 0) return [];
    const rows = await this.db.selectFrom('task_stages').selectAll().where('run_id', 'in', [...runIds]).execute();
    return rows.sort(
      (a, b) => runIds.indexOf(a.run_id) - runIds.indexOf(b.run_id) || compareStages(a.stage, b.stage),
    );
  }

  /** Results of the given stages in creation order (the order of the workspace's tasks). */
  async resultsOfStages(stageIds: string[], executor: Executor = this.db): Promise<TaskResultRow[]> {
    if (stageIds.length === 0) return [];
    const params = Object.fromEntries(stageIds.map((id, i) => [`stage${i}`, id]));
    return (await this.resultsOfStagesQuery(executor, stageIds.length, params)).rows;
  }

  /**
   * Takes the stage's row lock for the rest of the transaction (a no-op write, valid on both dialects):
   * every writer of a stage or its results' statuses locks the stage first, so two results finishing at once are
   * serialized and the second one sees the first when it derives the stage's status.
   */
  async lockStage(executor: Executor, stageId: string): Promise<void> {
    if (this.locksRows) await this.lockingWrites.byId(executor, { id: stageId });
  }

  /** lockStage for the stage of a result, found in the same statement (a result never changes stage). */
  async lockStageOfResult(executor: Executor, resultId: string): Promise<void> {
    if (this.locksRows) await this.lockingWrites.ofResult(executor, { id: resultId });
  }

  /**
   * lockStage that also answers the stage row, in one statement: on PostgreSQL `update … returning`
   * answers the latest version, the one committed by whoever held the lock while this waited (a plain
   * read in the same statement would answer the version of the statement's snapshot). SQLite needs no
   * lock (see locksRows) and reads the row.
   */
  async lockedStage(executor: Executor, stageId: string): Promise<StageInOrganization | undefined> {
    if (!this.locksRows) return (await this.stageInOrganizationById(executor, { id: stageId })).rows[0];
    return (await this.lockingWrites.byIdReturning(executor, { id: stageId })).rows[0];
  }

  /** lockedStage for the stage of a result. */
  async lockedStageOfResult(executor: Executor, resultId: string): Promise<StageInOrganization | undefined> {
    if (!this.locksRows) return (await this.stageOfResultById(executor, { id: resultId })).rows[0];
    return (await this.lockingWrites.ofResultReturning(executor, { id: resultId })).rows[0];
  }

  /** The no-op write whose row lock serializes a stage's writers. */
  private lockingWrite(executor: Executor, stage: StageSelector) {
    return executor
      .updateTable('task_stages')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', stage);
  }

  async updateStage(
    executor: Executor,
    id: string,
    fromStatuses: readonly StageStatus[],
    changes: { status: StageStatus; status_timestamps: string; updated_at: string },
  ): Promise<boolean> {
    return (await affectedRows(this.stageWrite(executor, fromStatuses, { ...changes, id }))) > 0;
  }

  /** With `ifUpdatedAt`, the write also needs the result's updated_at to be that (nobody refreshed it meanwhile). */
  async updateResult(
    executor: Executor,
    id: string,
    fromStatuses: readonly ResultStatus[],
    changes: Partial<Pick<TaskResultRow, 'status' | 'status_timestamps' | 'message' | 'url' | 'updated_at'>>,
    ifUpdatedAt?: string,
  ): Promise<boolean> {
    const shape = { fromStatuses, columns: definedColumns(changes), ifUpdatedAt: ifUpdatedAt !== undefined };
    return (await affectedRows(this.resultWrite(executor, shape, { ...changes, id, ifUpdatedAt }))) > 0;
  }

  stagesOfRunWithStatus(executor: Executor, runId: string, statuses: readonly StageStatus[]): Promise<TaskStageRow[]> {
    return executor.selectFrom('task_stages').selectAll().where('run_id', '=', runId).where('status', 'in', [...statuses]).execute();
  }

  resultsOfRunWithStatus(executor: Executor, runId: string, statuses: readonly ResultStatus[]): Promise<TaskResultRow[]> {
    return executor.selectFrom('task_results').selectAll().where('run_id', '=', runId).where('status', 'in', [...statuses]).execute();
  }

  async outcomes(resultId: string, offset: number, limit: number): Promise<{ rows: OutcomeRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('task_result_outcomes')
      .selectAll()
      .where('task_result_id', '=', resultId)
      .orderBy('position')
      .limit(limit)
      .offset(offset)
      .execute();
    const count = await this.db
      .selectFrom('task_result_outcomes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('task_result_id', '=', resultId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** A callback's outcomes replace what an earlier callback of the same result sent. */
  async replaceOutcomes(executor: Executor, resultId: string, rows: OutcomeRow[]): Promise<void> {
    await executor.deleteFrom('task_result_outcomes').where('task_result_id', '=', resultId).execute();
    if (rows.length > 0) await executor.insertInto('task_result_outcomes').values(rows).execute();
  }

  async insertOverride(executor: Executor, row: OverrideRow): Promise<void> {
    await executor.insertInto('task_stage_overrides').values(row).execute();
  }

  /** The overrides of these stages, oldest first (who approved, for the stage's "n of N" and its record). */
  overridesOf(stageIds: readonly string[], executor: Executor = this.db): Promise<OverrideRow[]> {
    if (stageIds.length === 0) return Promise.resolve([]);
    return executor.selectFrom('task_stage_overrides').selectAll().where('task_stage_id', 'in', [...stageIds]).orderBy('created_at').orderBy('id').execute();
  }

  /** Who created each run and whether its workspace prevents self-approval, as the override rule counts approvals. */
  async approvalSettingsOfRuns(runIds: readonly string[], executor: Executor = this.db): Promise<Map<string, RunApprovalSettings>> {
    if (runIds.length === 0) return new Map();
    const rows = await executor
      .selectFrom('runs')
      .innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id')
      .select(['runs.id', 'runs.workspace_id', 'runs.created_by_user_id', 'workspaces.prevent_self_approval'])
      .where('runs.id', 'in', [...new Set(runIds)])
      .execute();
    return new Map(rows.map((row) => [row.id, { workspaceId: row.workspace_id, authorUserId: row.created_by_user_id, preventSelfApproval: Number(row.prevent_self_approval) === 1 }]));
  }

  async findOverride(stageId: string, executor: Executor = this.db): Promise<OverrideRow | undefined> {
    return (await this.overrideOfStage(executor, { stageId })).rows[0];
  }
}
