import type { Compilable, Kysely, RawBuilder } from 'kysely';

/**
 * A raw `sql` statement as a Compilable, so db/compiled-query.ts can keep its SQL: a RawBuilder compiles
 * only against an executor, which the compiled-query helpers do not pass.
 */
export function rawCompilable<R, DB>(db: Kysely<DB>, raw: RawBuilder<R>): Compilable<R> {
  return { compile: () => raw.compile(db) };
}
