import type { Kysely, QueryCreator } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The pieces of an audit entry's insert that a statement writing another table composes (the record domain owns
 * the audit_trail table): a team PATCH writes its change and its entry in one statement on PostgreSQL
 * (teams/team-conditional-update.ts).
 */
export const AUDIT_COLUMNS = [
  'id', 'organization_name', 'timestamp', 'accessor_id', 'actor_name', 'actor_kind', 'request_id', 'resource_id', 'resource_type', 'action', 'meta',
] as const;

export type AuditColumn = (typeof AUDIT_COLUMNS)[number];

/** One entry's insert, on its own (SQLite, where no data-modifying WITH exists). */
export function auditEntryInsert(db: Kysely<Database>, value: (column: AuditColumn) => unknown) {
  return db.insertInto('audit_trail').values(Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, value(column)])) as never);
}

/**
 * The entry inserted once for each row of the WITH query `from` (PostgreSQL's data-modifying WITH): written only
 * when the change it records matched a row.
 */
export function auditEntryInsertFrom(qc: QueryCreator<Database>, from: keyof Database, value: (column: AuditColumn) => unknown) {
  return qc
    .insertInto('audit_trail')
    .columns([...AUDIT_COLUMNS])
    .expression((eb) => eb.selectFrom(from).select(AUDIT_COLUMNS.map((column) => eb.val(value(column)).as(column))));
}
