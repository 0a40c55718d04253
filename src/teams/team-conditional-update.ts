import type { Kysely } from 'kysely';
import { compiledOnce, compiledPerShape, type QueryRunner } from '../db/compiled-query.js';
import type { Dialect } from '../db/database.js';
import type { Database, TeamsTable } from '../db/schema.js';
import type { AuditTrailRow } from '../record/audit-trail.js';
import { AUDIT_COLUMNS, auditEntryInsert, auditEntryInsertFrom } from '../record/audit-trail-statements.js';
import { teamFromRow, type Team } from './team.js';

type TeamChanges = Partial<Omit<TeamsTable, 'id' | 'organization_name' | 'is_owners'>>;

const RETURNED = [
  'id', 'organization_name', 'name', 'name_lower', 'sso_team_id', 'visibility', 'allow_member_token_management',
  'organization_access', 'is_owners', 'service_account_user_id', 'created_at', 'updated_at',
] as const;

/**
 * The columns an update's decision and its audit entry take from the row as read (teams.service.ts
 * `changesFor`, team-audit.ts): the write happens only if none of them changed since. `updated_at` too, so a
 * change to the same values and back is seen. `service_account_user_id` is neither decided on nor audited;
 * the answer takes it from RETURNING.
 */
const COMPARED = ['name', 'visibility', 'organization_access', 'allow_member_token_management', 'updated_at'] as const;

interface Shape {
  /** The columns written, sorted. */
  columns: string[];
  /** `is null` and `= $n` are different statements. */
  ssoTeamIdNull: boolean;
  /** PostgreSQL with an audit entry: one statement, the entry inserted from the updated row (a data-modifying WITH). */
  withAudit: boolean;
}

const statements = new WeakMap<Kysely<Database>, ReturnType<typeof conditionalUpdate>>();

function conditionalUpdate(db: Kysely<Database>) {
  // SQLite's audit entry, apart from the update (no data-modifying WITH there).
  const insertAudit = compiledOnce((p: Record<(typeof AUDIT_COLUMNS)[number], string>) => auditEntryInsert(db, (column) => p[column]));
  const update = compiledPerShape(
    (shape: Shape) => `${shape.columns.join(',')}|${shape.ssoTeamIdNull}|${shape.withAudit}`,
    (shape, p: Record<string, unknown>) => {
      const update = (qc: Kysely<Database>) => {
        let query = qc
          .updateTable('teams')
          .set(Object.fromEntries(shape.columns.map((column) => [column, p[`set_${column}`]])))
          .where('id', '=', p.id as string);
        for (const column of COMPARED) query = query.where(column, '=', p[`was_${column}`] as never);
        query = shape.ssoTeamIdNull ? query.where('sso_team_id', 'is', null) : query.where('sso_team_id', '=', p.was_sso_team_id as string);
        return query.returning([...RETURNED]);
      };
      if (!shape.withAudit) return update(db);
      // The entry is inserted only when the update matched: selected from its RETURNING rows.
      return db
        .with('updated', (qc) => update(qc as unknown as Kysely<Database>))
        // 'updated' is this statement's own WITH query, not a table of Database: hence the casts.
        .with('audit', (qc) => auditEntryInsertFrom(qc as never, 'updated' as never, (column) => p[`audit_${column}`]))
        .selectFrom('updated')
        .select([...RETURNED]);
    },
  );
  return { update, insertAudit };
}

/**
 * Writes `changes` to a team if it is still stored as `read` (COMPARED, and the SSO team id), with `audit`:
 * on PostgreSQL in one statement (the issue-39 bound: a PATCH is its statement and its audit entry), on SQLite
 * in one transaction (no data-modifying WITH there; its statements cost no round trip). Answers the row as
 * stored, or undefined when the team changed or went away meanwhile and nothing was written.
 */
export async function updateTeamIfUnchanged(
  db: Kysely<Database>,
  dialect: Dialect,
  read: TeamsTable,
  changes: TeamChanges,
  audit: AuditTrailRow | undefined,
): Promise<Team | undefined> {
  let statement = statements.get(db);
  if (!statement) statements.set(db, (statement = conditionalUpdate(db)));
  const columns = Object.keys(changes).filter((column) => changes[column as keyof TeamChanges] !== undefined).sort();
  const params: Record<string, unknown> = { id: read.id, was_sso_team_id: read.sso_team_id };
  for (const column of columns) params[`set_${column}`] = changes[column as keyof TeamChanges];
  for (const column of COMPARED) params[`was_${column}`] = read[column];
  const shape = (withAudit: boolean): Shape => ({ columns, ssoTeamIdNull: read.sso_team_id === null, withAudit });
  const { update, insertAudit } = statement;
  const run = async (runner: QueryRunner, withAudit: boolean) => ((await update(runner, shape(withAudit), params)).rows[0] as TeamsTable | undefined);
  if (!audit) return found(await run(db, false));
  if (dialect === 'postgres') {
    for (const column of AUDIT_COLUMNS) params[`audit_${column}`] = audit[column];
    return found(await run(db, true));
  }
  return db.transaction().execute(async (trx) => {
    const row = await run(trx, false);
    if (row) await insertAudit(trx, audit as Record<(typeof AUDIT_COLUMNS)[number], string>);
    return found(row);
  });
}

const found = (row: TeamsTable | undefined) => row && teamFromRow(row);
