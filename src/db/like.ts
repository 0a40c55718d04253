import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** LIKE treats % and _ as wildcards; names may contain `_`, which must match literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * `column LIKE '%text%' ESCAPE '\'`, the same on both dialects (SQLite has no default escape character).
 * The column should hold lower-cased text and `text` be lower-cased by the caller.
 */
export function containsText(column: Expression<unknown> | RawBuilder<unknown>, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${column} like ${`%${escapeLike(text)}%`} escape '\\'`;
}
