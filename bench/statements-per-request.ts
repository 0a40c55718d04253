/**
 * `node --import tsx bench/statements-per-request.ts`: the SQL statements one GET /teams/:id, one
 * PATCH /teams/:id and one page of the team list with `q` run on SQLite, in order (issue 18: an uncached
 * read should be one or two statements). A diagnostic, not a bench row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { seedOrganization, seedTeamQueries } from './seed.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-statements-'));
const databaseUrl = `sqlite:${path.join(dir, 'db.sqlite')}`;
const seeded = await seedOrganization(databaseUrl, 100);
const statements: string[] = [];
const handle = openDatabase(databaseUrl, { sqliteSynchronous: 'GROUP', slowQueryMs: 0, onSlowQuery: (sql) => statements.push(sql) });
const config = loadConfig({ DATABASE_URL: databaseUrl, TEAMSTAGE_JOBS: 'off', TEAMSTAGE_RATE_LIMIT: '0', TEAMSTAGE_DATA_DIR: dir });
const { app } = await buildApp({ config, handle, logger: false });
const headers = { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/vnd.api+json' };
const url = `/api/v2/teams/${seeded.sampleTeamId}`;
await app.inject({ method: 'GET', url, headers }); // the token's last-used-at is written once
const requests = [
  ['GET', url, undefined],
  ['PATCH', url, JSON.stringify({ data: { type: 'teams', attributes: { visibility: 'secret' } } })],
  ['GET', `/api/v2/organizations/${seeded.organization}/teams?q=${seedTeamQueries(100)[5]}`, undefined],
] as const;
for (const [method, path, payload] of requests) {
  statements.length = 0;
  const response = await app.inject({ method, url: path, headers, payload });
  console.log(`${method} ${path} ${response.statusCode}: ${statements.length} statements`);
  for (const sql of statements) console.log(`  ${sql}`);
}
await app.close();
await handle.close();
fs.rmSync(dir, { recursive: true, force: true });
