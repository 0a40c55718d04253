import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOpa } from '../src/policies/opa-engine.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';

/**
 * The OPA the policy rows use: TEAMSTAGE_OPA_PATH, else scripts/build-opa.sh's cache, else the PATH; the row
 * cannot be measured without it.
 */
export function benchOpa(row: string): { path: string; version: string } {
  const cached = path.join(os.homedir(), '.cache/teamstage-realclients/bin/opa');
  const found = findOpa(process.env.TEAMSTAGE_OPA_PATH || (fs.existsSync(cached) ? cached : undefined));
  if (found.path === undefined) throw new Error(`${row} needs OPA: ${found.reason} (bash scripts/build-opa.sh)`);
  return found;
}

/**
 * A compiled server of its own on a fresh SQLite file with OPA as its engine (the engine runs outside the
 * database, so one dialect tells it), its site token, and a way to stop it and remove its files.
 */
export async function startPolicyServer(
  opaPath: string,
  policy: { timeoutSeconds: number; slots: number },
): Promise<{ server: ServerProcess; siteToken: string; close: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-bench-policy-'));
  const siteToken = randomBytes(24).toString('hex');
  const server = await startServerProcess(
    {
      DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`,
      TEAMSTAGE_DATA_DIR: dataDir,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_RATE_LIMIT: '0',
      TEAMSTAGE_OPA_PATH: opaPath,
      TEAMSTAGE_POLICY_TIMEOUT: String(policy.timeoutSeconds),
      TEAMSTAGE_POLICY_CONCURRENCY: String(policy.slots),
      // One organization drives every slot here (throughput and isolation rows): by default it gets half of them.
      TEAMSTAGE_POLICY_PER_ORGANIZATION: String(policy.slots),
    },
    { compiled: true, readyTimeoutMs: 60_000 },
  );
  return {
    server,
    siteToken,
    close: async () => {
      await server.kill('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
