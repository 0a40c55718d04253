/** Issue 40: where the database is when nothing says, DATABASE_URL_FILE in the image, a malformed PostgreSQL URL. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('DATABASE_URL', () => {
  it('unset: SQLite in TEAMSTAGE_DATA_DIR (the image sets only that), else ./data', () => {
    assert.equal(loadConfig({}).databaseUrl, 'sqlite:./data/teamstage.sqlite');
    assert.equal(loadConfig({ TEAMSTAGE_DATA_DIR: '/data' }).databaseUrl, 'sqlite:/data/teamstage.sqlite');
  });

  it('DATABASE_URL_FILE alone works beside the image environment; both variables at once are refused', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dburl-')), 'database-url');
    fs.writeFileSync(file, 'postgres://teamstage:s3cret@db:5432/teamstage\n');
    assert.equal(loadConfig({ TEAMSTAGE_DATA_DIR: '/data', DATABASE_URL_FILE: file }).databaseUrl, 'postgres://teamstage:s3cret@db:5432/teamstage');
    assert.throws(() => loadConfig({ DATABASE_URL: 'sqlite:/x.sqlite', DATABASE_URL_FILE: file }), /set DATABASE_URL or DATABASE_URL_FILE, not both/);
  });

  it('a malformed PostgreSQL URL says so, without repeating the password', () => {
    for (const bad of ['postgres://teamstage:pa#ss@db:5432/teamstage', 'postgres://teamstage:pa/ss@db/teamstage', 'postgres://:5432/x']) {
      assert.throws(() => loadConfig({ DATABASE_URL: bad }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /not a valid PostgreSQL URL .*percent-encoded/);
        assert.doesNotMatch(error.message, /pa.ss/);
        return true;
      });
    }
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://teamstage:pa%23ss@db:5432/teamstage' }).databaseUrl, 'postgres://teamstage:pa%23ss@db:5432/teamstage');
  });
});

describe('TEAMSTAGE_NODE_NAME', () => {
  it('names the node in log lines; the host name by default', () => {
    assert.equal(loadConfig({ TEAMSTAGE_NODE_NAME: 'node-a' }).nodeName, 'node-a');
    assert.equal(loadConfig({}).nodeName, os.hostname());
  });
});
