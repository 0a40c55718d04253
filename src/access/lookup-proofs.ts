/**
 * Proofs of a lookup (src/http/lookups.ts): a thing found for a caller who may see it is `Visible<T>`, one the
 * caller may also change is `Writable<T>`. Only a lookup's access check brands a value (provenVisible,
 * provenWritable), and services take the brand they need, so a service cannot be handed a row that skipped the
 * check, nor a visible thing where it changes it (test/unit/lookup-proofs.test.ts proves it with the compiler).
 * The brands are types only: at run time the value is the row or context itself.
 */
declare const visibleProof: unique symbol;
declare const writableProof: unique symbol;

export type Visible<T> = T & { readonly [visibleProof]: true };
/** Writable implies visible: a writable thing may be passed where a visible one is asked for, never the reverse. */
export type Writable<T> = Visible<T> & { readonly [writableProof]: true };

/** For the lookup that has just decided the caller may see `value` (the access table's read verdict). */
export function provenVisible<T>(value: T): Visible<T> {
  return value as Visible<T>;
}

/** For the lookup that has just decided the caller may change what it proved visible (the write verdict). */
export function provenWritable<T>(value: Visible<T>): Writable<T> {
  return value as Writable<T>;
}
