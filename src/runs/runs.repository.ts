import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { affectedRows, compiledOnce, compiledPerShape, definedColumns } from '../db/compiled-query.js';
import type { Executor, NewJob } from '../jobs/job-queue.js';
import { newJobTableRows } from '../jobs/job-statements.js';
import type { Dialect } from '../db/database.js';
import { multiTableInsert, type TableRows } from '../db/multi-table-insert.js';
import type { Database, PhasesTable, RunsTable, TaskStagesTable } from '../db/schema.js';
import type { RunInOrganization } from './run-in-organization.js';
import type { NewRunRows } from './new-run-rows.js';
import type { NewRunStagesWriter } from './new-run-stages.js';
import { aheadInQueue } from './workspace-queue.repository.js';
import { containsText } from '../db/like.js';
import type { RunListFilter } from './run-list-filter.js';
import { TERMINAL_RUN_STATUSES, type RunStatus } from '../shared/run-statuses.js';
import { PHASE_COLUMNS } from './phase-columns.js';
import { readRunRelations, type RunRelationRows } from './run-relations.js';

export type RunRow = RunsTable;
/** A plan or apply as read with its run; the uploads it points at (plan JSON, log) are read piece by piece (phase-uploads.repository.ts). */
export type PhaseRow = PhasesTable;
/** What a write may change on a plan or apply, uploads included. */
export type PhaseChanges = Partial<Omit<PhasesTable, 'id' | 'run_id' | 'created_at'>>;
export type PhaseTable = 'plans' | 'applies';
/** What a plan or apply is told of the run's workspace. */
export interface WorkspaceNames {
  name: string;
  organizationName: string;
}

/** What the run state machine needs of a task stage. */
export type StageRow = Pick<TaskStagesTable, 'id' | 'stage' | 'status'>;

const RUN_COLUMNS = [
  'runs.id', 'runs.workspace_id', 'runs.configuration_version_id', 'runs.status', 'runs.status_timestamps', 'runs.message',
  'runs.plan_only', 'runs.auto_apply', 'runs.is_destroy', 'runs.created_by_user_id', 'runs.created_by_name', 'runs.execution_mode',
  'runs.error_message', 'runs.options', 'runs.operation', 'runs.confirmed_by_user_id', 'runs.created_at', 'runs.updated_at',
] as const;

/** Which upload of a phase: the plan JSON or the log, and the columns that point at it. */
export type PhaseUploadKind = 'json' | 'log';
export const UPLOAD_COLUMNS = {
  json: { id: 'json_upload_id', bytes: 'json_bytes' },
  log: { id: 'log_upload_id', bytes: 'log_bytes' },
} as const satisfies Record<PhaseUploadKind, { id: keyof PhasesTable; bytes: keyof PhasesTable }>;

/** Runs with their plan, apply and the task stage rows created with them. */
export class RunsRepository {
  /** Whether insertNewRun writes a run in one statement (PostgreSQL), its job included. */
  private readonly insertsInOneStatement: boolean;
  private readonly insertAll: ReturnType<typeof multiTableInsert>;
  /** PostgreSQL: the queue's turn is decided under the workspace's row lock (SQLite transactions hold the whole database). */
  private readonly locksRows: boolean;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
    /** The job queue, for SQLite's separate insert of a new run's first job. */
    private readonly jobs: { enqueue(executor: Executor, job: NewJob): Promise<void> },
    /** The task stage side's inserts of a new run's stages and results (the port in new-run-stages.ts). */
    private readonly stagesWriter: NewRunStagesWriter,
  ) {
    this.insertsInOneStatement = dialect === 'postgres';
    this.locksRows = dialect === 'postgres';
    this.insertAll = multiTableInsert(db);
  }

  // The statements of run progress, compiled once (db/compiled-query.ts).
  private readonly statusWrite = compiledOnce((p: { id: string; from: RunStatus; to: RunStatus; timestamps: string; now: string; error: string | null }) =>
    this.db
      .updateTable('runs')
      .set({ status: p.to, status_timestamps: p.timestamps, updated_at: p.now, error_message: p.error })
      .where('id', '=', p.id)
      .where('status', '=', p.from),
  );
  private readonly runByIdQuery = compiledOnce((p: { id: string }) => this.db.selectFrom('runs').select(RUN_COLUMNS).where('id', '=', p.id));
  private readonly runWithStagesQuery = compiledOnce((p: { id: string }) =>
    this.db
      .selectFrom('runs')
      .innerJoin('workspaces as w', 'w.id', 'runs.workspace_id')
      .leftJoin('plans as p', 'p.run_id', 'runs.id')
      .leftJoin('task_stages as s', 's.run_id', 'runs.id')
      .select([
        ...RUN_COLUMNS, 'w.name as workspace_name', 'w.organization_name as workspace_organization_name', 'p.has_changes as plan_has_changes',
        's.id as stage_id', 's.stage as stage_name', 's.status as stage_status',
      ])
      .where('runs.id', '=', p.id),
  );
  private readonly stagesQuery = compiledOnce((p: { runId: string }) =>
    this.db.selectFrom('task_stages').select(['id', 'stage', 'status']).where('run_id', '=', p.runId),
  );
  private readonly planAndApplyQuery = compiledOnce((p: { runId: string }) =>
    this.db
      .selectFrom('plans')
      .select([...PHASE_COLUMNS, sql.lit('plans').as('phase')])
      .where('run_id', '=', p.runId)
      .unionAll(this.db.selectFrom('applies').select([...PHASE_COLUMNS, sql.lit('applies').as('phase')]).where('run_id', '=', p.runId)),
  );
  /** Shape: the table and the columns set. */
  private readonly phaseWrite = compiledPerShape(
    (shape: { table: PhaseTable; columns: string[] }) => `${shape.table}:${shape.columns.join(',')}`,
    (shape, p: Record<string, unknown>) =>
      this.db
        .updateTable(shape.table)
        .set(Object.fromEntries(shape.columns.map((column) => [column, p[column]])))
        .where('id', '=', p.id as string),
  );

  /**
   * Writes a new run's rows. PostgreSQL (insertsInOneStatement): one statement, with `job` (the run's
   * first step) in it, atomic without a transaction. SQLite: an insert per table, in the caller's
   * transaction (newRunScope), the job enqueued after them.
   */
  async insertNewRun(executor: Executor, rows: NewRunRows, job: NewJob, record: readonly TableRows[] = []): Promise<void> {
    if (this.insertsInOneStatement) {
      await this.insertAll(executor, [
        { table: 'runs', rows: [rows.run] },
        { table: 'plans', rows: [rows.plan] },
        { table: 'applies', rows: [rows.apply] },
        ...this.stagesWriter.tableRows(rows),
        ...record,
        newJobTableRows(job),
      ]);
      return;
    }
    await executor.insertInto('runs').values(rows.run).execute();
    await executor.insertInto('plans').values(rows.plan).execute();
    await executor.insertInto('applies').values(rows.apply).execute();
    await this.stagesWriter.insert(executor, rows);
    // The record's rows, as record/run-record.ts made them (its tables; runs only writes them with the run).
    for (const table of record) {
      if (table.rows.length > 0) await executor.insertInto(table.table).values(table.rows as never).execute();
    }
    await this.jobs.enqueue(executor, job);
  }

  /**
   * Runs `work`, which creates a run (insertNewRun), atomically: on PostgreSQL the run is one statement,
   * atomic by itself, so no transaction (no BEGIN and COMMIT round trips); on SQLite, in a transaction.
   */
  newRunScope<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    return this.insertsInOneStatement ? work(this.db) : this.db.transaction().execute(work);
  }

  async findRun(id: string, executor: Executor = this.db): Promise<RunRow | undefined> {
    return (await this.runByIdQuery(executor, { id })).rows[0];
  }

  /** The creator's username as stored with a run (and sent to run tasks as `run_created_by`). */
  /** HCP's confirmed-by, written with the apply decision. */
  async setConfirmedBy(executor: Executor, runId: string, userId: string | null): Promise<void> {
    await executor.updateTable('runs').set({ confirmed_by_user_id: userId }).where('id', '=', runId).execute();
  }

  async usernameOf(executor: Executor, userId: string): Promise<string | undefined> {
    return (await executor.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst())?.username;
  }

  /** Newest first, as HCP lists runs; `filter` narrows the list (run-list-filter.ts says how). */
  async listRuns(workspaceId: string, offset: number, limit: number, filter?: RunListFilter): Promise<{ rows: RunRow[]; total: number }> {
    if (filter?.matchesNothing) return { rows: [], total: 0 };
    let query = this.db.selectFrom('runs').where('runs.workspace_id', '=', workspaceId);
    if (filter?.statuses) query = query.where('runs.status', 'in', filter.statuses);
    if (filter?.operations) query = query.where('runs.operation', 'in', filter.operations);
    // Every run here comes through the API: HCP's source `tfe-api`.
    if (filter?.sources && !filter.sources.includes('tfe-api')) return { rows: [], total: 0 };
    if (filter?.user) query = query.where('runs.created_by_name', '=', filter.user);
    if (filter?.basic) {
      const text = filter.basic.toLowerCase();
      query = query.where((eb) =>
        eb.or([containsText(sql`lower(runs.id)`, text), containsText(sql`lower(runs.message)`, text), containsText(sql`lower(coalesce(runs.created_by_name, ''))`, text)]),
      );
    }
    if (filter?.statusGroup) {
      // `applied` is final unless a post-apply stage follows it (run-state-machine.ts isFinished); a finished
      // plan waits for a person when the run may still be applied (not plan-only) and no post-plan stage follows.
      const hasStage = (stage: string) => sql<boolean>`exists (select 1 from task_stages s where s.run_id = runs.id and s.stage = ${stage})`;
      const final = (eb: ExpressionBuilder<Database, 'runs'>) =>
        eb.or([eb('runs.status', 'in', [...TERMINAL_RUN_STATUSES]), eb.and([eb('runs.status', '=', 'applied'), eb.not(hasStage('post_apply'))])]);
      if (filter.statusGroup === 'final') query = query.where(final);
      else if (filter.statusGroup === 'non_final') query = query.where((eb) => eb.not(final(eb)));
      else {
        query = query.where((eb) =>
          eb.or([
            eb('runs.status', 'in', ['pending', 'pre_plan_awaiting_decision', 'post_plan_awaiting_decision', 'pre_apply_awaiting_decision', 'post_apply_awaiting_decision']),
            eb.and([eb('runs.status', '=', 'post_plan_completed'), eb('runs.plan_only', '=', 0)]),
            eb.and([eb('runs.status', '=', 'planned'), eb('runs.plan_only', '=', 0), eb.not(hasStage('post_plan'))]),
          ]),
        );
      }
    }
    const rows = await query.select(RUN_COLUMNS).orderBy('runs.created_at', 'desc').orderBy('runs.id', 'desc').limit(limit).offset(offset).execute();
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /**
   * Moves the run from `from` to `to` only if it is still in `from` (compare-and-set): of two workers
   * or requests racing on one run, exactly one wins; the other sees false and re-reads.
   */
  async compareAndSetStatus(executor: Executor, id: string, from: RunStatus, to: RunStatus, statusTimestamps: string, now: string, error: string | null = null): Promise<boolean> {
    return (await affectedRows(this.statusWrite(executor, { id, from, to, timestamps: statusTimestamps, now, error }))) > 0;
  }

  /**
   * findRun, taskStagesOf, the names of the run's workspace and whether its plan has changes, in one
   * statement, for run progress.
   */
  async runWithStages(
    runId: string,
    executor: Executor = this.db,
  ): Promise<{ run: RunInOrganization; stages: StageRow[]; workspace: WorkspaceNames; planHasChanges: boolean } | undefined> {
    const { rows } = await this.runWithStagesQuery(executor, { id: runId });
    if (rows.length === 0) return undefined;
    const {
      stage_id: _id, stage_name: _stage, stage_status: _status, workspace_name: name, workspace_organization_name: organizationName,
      plan_has_changes: planHasChanges, ...run
    } = rows[0]!;
    const stages = rows.flatMap((row) => (row.stage_id && row.stage_name && row.stage_status ? [{ id: row.stage_id, stage: row.stage_name, status: row.stage_status }] : []));
    return { run: { ...run, organizationName }, stages, workspace: { name, organizationName }, planHasChanges: Number(planHasChanges) === 1 };
  }

  /** The run's task stages in run order (id, stage, status), for the run state machine. */
  async taskStagesOf(runId: string, executor: Executor = this.db): Promise<StageRow[]> {
    return (await this.stagesQuery(executor, { runId })).rows;
  }

  /** Stages of several runs at once (relationships of a page of runs). */
  taskStagesOfRuns(runIds: readonly string[]): Promise<Array<Pick<TaskStagesTable, 'id' | 'run_id' | 'stage' | 'status'>>> {
    if (runIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('task_stages').select(['id', 'run_id', 'stage', 'status']).where('run_id', 'in', [...runIds]).execute();
  }

  /** A page of runs' plans, applies, task stages and record ids, in one statement (run-relations.ts). */
  relationsOfRuns(runIds: readonly string[]): Promise<RunRelationRows> {
    return readRunRelations(this.db, runIds);
  }

  phasesOfRuns(table: PhaseTable, runIds: readonly string[], executor: Executor = this.db): Promise<PhaseRow[]> {
    if (runIds.length === 0) return Promise.resolve([]);
    return executor.selectFrom(table).select(PHASE_COLUMNS).where('run_id', 'in', [...runIds]).execute();
  }

  /** A run's plan and apply, in one statement. */
  async planAndApplyOf(runId: string, executor: Executor = this.db): Promise<{ plan?: PhaseRow; apply?: PhaseRow }> {
    const { rows } = await this.planAndApplyQuery(executor, { runId });
    const pick = (phase: string) => {
      const found = rows.find((row) => row.phase === phase);
      if (!found) return undefined;
      const { phase: _, ...row } = found;
      return row;
    };
    return { plan: pick('plans'), apply: pick('applies') };
  }

  findPhase(table: PhaseTable, id: string, executor: Executor = this.db): Promise<PhaseRow | undefined> {
    return executor.selectFrom(table).select(PHASE_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Whether the plan holds a plan JSON, without reading it. */
  async planHasJson(planId: string, executor: Executor = this.db): Promise<boolean> {
    const row = await executor.selectFrom('plans').select('json_upload_id').where('id', '=', planId).executeTakeFirst();
    return Boolean(row?.json_upload_id);
  }

  /**
   * Points the phase at a new upload (agent mode), whose pieces are already written, with what was derived
   * from it, in one statement that checks the phase: only while it is running and unreported, so an upload
   * racing the report either lands before it or not at all (the report's status change holds the row), and
   * only while it still points at `replacing` (what the caller read), so that the caller knows which upload
   * it replaced when two race. Answers the phase as written, or undefined when a condition failed.
   */
  async attachUpload(
    table: PhaseTable,
    id: string,
    kind: PhaseUploadKind,
    upload: { id: string; bytes: number; replacing: string | null },
    changes: Pick<PhaseChanges, 'has_changes' | 'resource_additions' | 'resource_changes' | 'resource_destructions' | 'resource_imports' | 'updated_at'>,
  ): Promise<PhaseRow | undefined> {
    const columns = UPLOAD_COLUMNS[kind];
    return this.db
      .updateTable(table)
      .set({ ...changes, [columns.id]: upload.id, [columns.bytes]: upload.bytes })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('agent_report', 'is', null)
      .where(columns.id, upload.replacing === null ? 'is' : '=', upload.replacing)
      .returning(PHASE_COLUMNS)
      .executeTakeFirst();
  }

  /**
   * Takes the workspace's row lock for the rest of the transaction (PostgreSQL; SQLite's transactions are
   * serialized already): every decision that a run of the workspace may take its turn (run-queue.ts) holds
   * it, so of two nodes deciding at once, the second sees the first one's run holding the turn.
   */
  async lockWorkspaceTurn(executor: Executor, workspaceId: string): Promise<void> {
    if (this.locksRows) await executor.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
  }

  /**
   * How many runs of the workspace come before this one in its queue: the run holding the turn (a
   * non-speculative run that is neither pending nor finished) and the non-speculative runs pending since
   * before it. 0: its turn.
   */
  async runsAhead(executor: Executor, run: Pick<RunRow, 'id' | 'workspace_id' | 'created_at'>): Promise<number> {
    const row = await executor
      .selectFrom('runs as r')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => aheadInQueue(eb, run))
      .executeTakeFirstOrThrow();
    // A locked workspace (HCP's lock, issue 37) starts no run: the lock counts as one more ahead; unlocking wakes the queue.
    const workspace = await executor.selectFrom('workspaces').select('locked').where('id', '=', run.workspace_id).executeTakeFirst();
    return Number(row.n) + (Number(workspace?.locked) === 1 ? 1 : 0);
  }

  /** The workspace's earliest pending non-speculative run: the next to take the turn. */
  async headOfQueue(workspaceId: string, executor: Executor = this.db): Promise<string | undefined> {
    const row = await executor
      .selectFrom('runs')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('plan_only', '=', 0)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  async updatePhase(executor: Executor, table: PhaseTable, id: string, changes: PhaseChanges): Promise<void> {
    await this.phaseWrite(executor, { table, columns: definedColumns(changes) }, { ...changes, id });
  }
}
