import type { Insertable, Kysely } from 'kysely';
import { compiledPerShape, type QueryRunner } from './compiled-query.js';
import type { Database } from './schema.js';

/** The rows one table receives in a multi-table insert; every row names the same columns. */
export interface TableRows<T extends keyof Database = keyof Database> {
  table: T;
  rows: ReadonlyArray<Insertable<Database[T]>>;
}

/** The statement's shape: each table with its columns and number of rows. */
type Shape = Array<{ table: keyof Database; columns: string[]; rows: number }>;

const param = (table: number, row: number, column: string) => `t${table}r${row}_${column}`;

/**
 * PostgreSQL: rows for several tables in one statement, `with t0 as (insert …), t1 as (insert …) insert …`:
 * atomic without BEGIN and COMMIT, in one round trip. Rows may reference rows of an earlier table of the
 * same statement: PostgreSQL checks foreign keys at the end of the statement. Compiled once per shape
 * (tables, columns, row counts), which the callers' code fixes to a few. SQLite has no data-modifying
 * WITH; its inserts go one by one in a transaction, which costs it no round trip.
 */
export function multiTableInsert(db: Kysely<Database>) {
  const statement = compiledPerShape(
    (shape: Shape) => shape.map((table) => `${table.table}(${table.columns.join(',')})x${table.rows}`).join(';'),
    (shape, p: Record<string, unknown>) => {
      const values = (index: number) => {
        const { columns, rows } = shape[index]!;
        return Array.from({ length: rows }, (_, row) => Object.fromEntries(columns.map((column) => [column, p[param(index, row, column)]])));
      };
      // The tables differ per shape, which Kysely's types cannot follow through a loop of `with`s.
      let creator: any = db;
      shape.slice(0, -1).forEach((table, index) => {
        creator = creator.with(`t${index}`, (qc: any) => qc.insertInto(table.table).values(values(index)));
      });
      return creator.insertInto(shape[shape.length - 1]!.table).values(values(shape.length - 1));
    },
  );
  return async (runner: QueryRunner, inserts: readonly TableRows[]): Promise<void> => {
    const tables = inserts.filter((insert) => insert.rows.length > 0);
    if (tables.length === 0) return;
    const shape: Shape = tables.map((insert) => ({ table: insert.table, columns: Object.keys(insert.rows[0]!), rows: insert.rows.length }));
    const params: Record<string, unknown> = {};
    tables.forEach((insert, index) => {
      const { columns } = shape[index]!;
      insert.rows.forEach((row, rowIndex) => {
        const values = row as Record<string, unknown>;
        if (Object.keys(values).length !== columns.length) throw new Error(`multi-table insert: the rows of ${insert.table} name different columns`);
        for (const column of columns) params[param(index, rowIndex, column)] = values[column];
      });
    });
    await statement(runner, shape, params);
  };
}
