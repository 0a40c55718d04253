import { sql, type Kysely } from 'kysely';
import type { Database, PhasesTable, TaskStagesTable } from '../db/schema.js';
import { PHASE_COLUMNS } from './phase-columns.js';

/** What readRunRelations reads for a page of runs. */
export interface RunRelationRows {
  plans: PhasesTable[];
  applies: PhasesTable[];
  stages: Array<Pick<TaskStagesTable, 'id' | 'run_id' | 'stage' | 'status'>>;
  /** The ids of the runs' events and their comments, oldest first. */
  record: Array<{ id: string; run_id: string; comment_id: string | null }>;
}

/** A row of readRunRelations' statement: a phase's columns, a stage's or an event's, the others null. */
type RelationRow = PhasesTable & { kind: 'plans' | 'applies' | 'stages' | 'events'; stage: TaskStagesTable['stage'] | null; comment_id: string | null; seq: unknown };

/**
 * The relationships of a page of runs in one statement (GET /runs/:id sent four, issue 39): their plans,
 * applies, task stages (id, stage, status) and the ids of their events with their comments, oldest first.
 * One UNION ALL whose rows say which table they come from, each padding the others' columns with nulls.
 * run_events is the record's table; it is only read here.
 */
export async function readRunRelations(db: Kysely<Database>, runIds: readonly string[]): Promise<RunRelationRows> {
  const relations: RunRelationRows = { plans: [], applies: [], stages: [], record: [] };
  if (runIds.length === 0) return relations;
  const ids = sql.join(runIds.map((id) => sql`${id}`));
  const phase = (table: 'plans' | 'applies') =>
    // Typed nulls: PostgreSQL types two untyped nulls in a row as text, which the later branches' columns may not be.
    sql`select ${sql.lit(table)} as kind, ${sql.join(PHASE_COLUMNS.map((column) => sql.ref(column)))}, cast(null as text) as stage,
        cast(null as text) as comment_id, cast(null as bigint) as seq
        from ${sql.table(table)} where run_id in (${ids})`;
  const nulls = (columns: readonly string[]) => sql.join(columns.map((column) => sql`null as ${sql.ref(column)}`));
  const phaseOnly = PHASE_COLUMNS.filter((column) => !['id', 'run_id', 'status'].includes(column));
  const { rows } = await sql<RelationRow>`
    ${phase('plans')}
    union all ${phase('applies')}
    union all select 'stages' as kind, id, run_id, status, ${nulls(phaseOnly)}, stage, cast(null as text) as comment_id, cast(null as bigint) as seq
      from task_stages where run_id in (${ids})
    union all select 'events' as kind, id, run_id, null as status, ${nulls(phaseOnly)}, null as stage, comment_id, seq
      from run_events where run_id in (${ids})
    order by kind, seq`.execute(db);
  for (const { kind, stage, comment_id, seq: _, ...columns } of rows) {
    if (kind === 'stages') relations.stages.push({ id: columns.id, run_id: columns.run_id, stage: stage!, status: columns.status as TaskStagesTable['status'] });
    else if (kind === 'events') relations.record.push({ id: columns.id, run_id: columns.run_id, comment_id: comment_id ?? null });
    else relations[kind].push(columns as PhasesTable);
  }
  return relations;
}
