/**
 * One row of BENCHMARKS.md: a scenario measured beside its physical limit. Its own file, so scenarios and the
 * runner (run.ts, which imports every scenario) share it without importing each other.
 */
export interface Row {
  scenario: string;
  /** The database, and its mode when not the default (e.g. `sqlite, synchronous=FULL`). */
  dialect: string;
  measured: string;
  baseline: string;
  ratio: string;
  target: string;
  met: boolean;
}
