import type pg from 'pg';

let loading: Promise<typeof pg> | undefined;

/**
 * node-postgres, loaded on first use rather than at start: a node on SQLite never needs it, and loading it cost
 * 25–35 ms of every start (its stream module even asks whether it runs in a Cloudflare Worker by touching
 * `Response`, which makes Node load its own copy of undici). In the bundle the dynamic import keeps pg's code
 * unevaluated until this runs (issue 39, start to ready).
 */
export function loadPg(): Promise<typeof pg> {
  loading ??= import('pg').then((module) => {
    const driver = module.default;
    // PostgreSQL returns COUNT(*) and BIGINT as strings; every count here fits in a JS number.
    driver.types.setTypeParser(20, (value) => Number(value));
    return driver;
  });
  return loading;
}
