import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ensureSiteToken } from '../../src/identity/site-token.js';
import { TokensRepository } from '../../src/identity/tokens.repository.js';
import { freshDatabaseUrl } from '../helpers/test-app.js';

describe('request log (src/http/request-log.ts)', () => {
  it('writes one line per request, with method, path and status, and neither the query string nor any header', async () => {
    const database = await freshDatabaseUrl('sqlite');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-data-'));
    const config = loadConfig({ DATABASE_URL: database.url, TEAMSTAGE_RATE_LIMIT: '0', TEAMSTAGE_DATA_DIR: dataDir, TEAMSTAGE_JOBS: 'off' });
    const handle = openDatabase(config.databaseUrl);
    await migrateToLatest(handle);
    const siteToken = 'site-token-for-request-log-0123456789';
    await ensureSiteToken(new TokensRepository(handle.db), { configured: siteToken, dataDir });
    const lines: string[] = [];
    const { app } = await buildApp({ config, handle, logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } });
    try {
      lines.length = 0;
      const response = await app.inject({ method: 'GET', url: '/api/v2/admin/users?q=secret-search', headers: { authorization: `Bearer ${siteToken}` } });
      const entries = lines.map((line) => JSON.parse(line));
      assert.equal(entries.length, 1, `one line: ${lines.join('')}`);
      assert.deepEqual(
        { msg: entries[0].msg, method: entries[0].method, url: entries[0].url, statusCode: entries[0].statusCode },
        { msg: 'request completed', method: 'GET', url: '/api/v2/admin/users', statusCode: response.statusCode },
      );
      assert.equal(typeof entries[0].responseTime, 'number');
      assert.ok(!lines[0]!.includes(siteToken) && !lines[0]!.includes('secret-search'), lines[0]);
    } finally {
      await app.close();
      await handle.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
