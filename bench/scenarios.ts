import type { Dialect } from '../src/db/database.js';
import type { ServerProcess } from '../test/helpers/server-process.js';
import type { Row } from './row.js';
import type { Seeded } from './seed.js';

export interface ScenarioContext {
  dialect: Dialect;
  server: ServerProcess;
  seeded: Seeded;
  settings: { rounds: number; duration: number; connections: number };
  rows: Row[];
  /** CPU time the database server has used so far, in ms; absent for SQLite (it runs inside the server). */
  databaseCpuMs?: () => number;
}

/** Scenarios beyond the teams ones (task stages, run-task fan-out) register here, by name (for --only). */
export const extraScenarios: Array<{ name: string; run: (context: ScenarioContext) => Promise<void> }> = [];
