/**
 * Issue 31, item 5: every start failure is one clear line and exit code 1, and nothing is printed or written
 * before the checks pass (a site token was once printed for a server whose port was taken). Item 6: secrets
 * from files. Item 3: the schema of a newer build is refused with a sentence, not Kysely's "corrupted migrations".
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { asRoot, assertOneClearLine, directory, NOBODY, runAsUs, runCli } from '../helpers/cli-process.js';

const made: string[] = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-start-'));
  made.push(dir);
  return dir;
}
const LONG_TOKEN = 'a'.repeat(20) + 'b'.repeat(20);

describe('a start that cannot succeed says why in one line, exit code 1', () => {
  it('a LOG_LEVEL pino does not know', async () => {
    const dir = scratch();
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${dir}/db.sqlite`, LOG_LEVEL: 'verbose' }, { asUs: true });
    assertOneClearLine(result, /LOG_LEVEL must be one of/, /verbose/);
    assert.equal(result.code, 1);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing written');
  });

  it('a port another process holds: no site token printed, none written', async () => {
    const dir = scratch();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${dir}/db.sqlite`, PORT: String(port) }, { asUs: true });
      assertOneClearLine(result, new RegExp(`127\\.0\\.0\\.1:${port}`), /EADDRINUSE/, /PORT/);
      assert.equal(result.code, 1);
      assert.doesNotMatch(result.output, /Site admin token/);
      assert.ok(!fs.existsSync(path.join(dir, 'site-token')), 'no site token file');
    } finally {
      holder.close();
    }
  });

  it('a TEAMSTAGE_SITE_TOKEN shorter than 32 characters', async () => {
    const dir = scratch();
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${dir}/db.sqlite`, TEAMSTAGE_SITE_TOKEN: 'abcde' }, { asUs: true });
    assertOneClearLine(result, /TEAMSTAGE_SITE_TOKEN must be at least 32 characters/, /openssl rand/);
    assert.ok(!result.output.includes('abcde'), 'the token is not echoed');
  });

  it('no writable temporary directory (uploads are spooled there)', { skip: !asRoot && 'needs root to run as another user' }, async () => {
    const data = directory(true);
    made.push(data);
    // A TMPDIR the server's user cannot write; tsx (which runs the CLI here) keeps its cache in a folder of
    // its own there, so that one folder is made writable for it.
    const tmp = scratch();
    fs.mkdirSync(path.join(tmp, `tsx-${NOBODY}`));
    fs.chownSync(path.join(tmp, `tsx-${NOBODY}`), NOBODY, NOBODY);
    fs.chmodSync(tmp, 0o555);
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${data}/db.sqlite`, TMPDIR: tmp });
    fs.chmodSync(tmp, 0o755);
    assertOneClearLine(result, /cannot write the temporary directory/, /EACCES/, /TMPDIR/);
    assert.equal(result.code, 1);
    assert.deepEqual(fs.readdirSync(data), [], 'nothing written');
  });

  it('a database a newer Teamstage migrated', async () => {
    const dir = scratch();
    const file = path.join(dir, 'db.sqlite');
    const migrated = await runAsUs(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(migrated.code, 0, migrated.output);
    const db = new SQLite(file);
    db.prepare(`insert into kysely_migration (name, timestamp) values ('999-from-the-future', '2030-01-01T00:00:00.000Z')`).run();
    db.close();
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${file}` }, { asUs: true });
    assertOneClearLine(result, /newer Teamstage/, /999-from-the-future/, /restore a backup/);
    assert.doesNotMatch(result.output, /corrupted/);
  });

  it('a restore from a backup the server user cannot read blames that file, not the data directory', { skip: !asRoot && 'needs root to run as another user' }, async () => {
    const dir = scratch();
    fs.chmodSync(dir, 0o777);
    const backup = path.join(dir, 'backup.sqlite');
    const made = await runAsUs(['migrate'], { DATABASE_URL: `sqlite:${backup}` });
    assert.equal(made.code, 0, made.output);
    fs.chmodSync(backup, 0o600); // root's, unreadable by nobody
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    fs.chownSync(data, NOBODY, NOBODY);
    const result = await runCli(['restore', backup], { DATABASE_URL: `sqlite:${data}/db.sqlite` });
    assertOneClearLine(result, new RegExp(`cannot read the backup ${backup.replace(/[.]/g, '\\.')}`), /EACCES/, /readable/);
    assert.doesNotMatch(result.output, new RegExp(`${data}`));
  });
});

describe('secrets from files (TEAMSTAGE_SITE_TOKEN_FILE, DATABASE_URL_FILE)', () => {
  it('the site token and the database URL are read from the files named', async () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, 'token'), `${LONG_TOKEN}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'url'), `sqlite:${dir}/from-file.sqlite\n`, { mode: 0o600 });
    // `migrate` reads the same configuration and exits: the database named in the file is the one made.
    const result = await runCli(['migrate'], { DATABASE_URL_FILE: path.join(dir, 'url'), TEAMSTAGE_SITE_TOKEN_FILE: path.join(dir, 'token') }, { asUs: true });
    assert.equal(result.code, 0, result.output);
    assert.ok(fs.existsSync(path.join(dir, 'from-file.sqlite')));
  });

  it('a variable and its _FILE together, or a file that cannot be read, stop the start', async () => {
    const dir = scratch();
    const both = await runCli(['serve'], { DATABASE_URL: `sqlite:${dir}/a.sqlite`, TEAMSTAGE_SITE_TOKEN: LONG_TOKEN, TEAMSTAGE_SITE_TOKEN_FILE: '/nonexistent' }, { asUs: true });
    assertOneClearLine(both, /TEAMSTAGE_SITE_TOKEN or TEAMSTAGE_SITE_TOKEN_FILE, not both/);
    const missing = await runCli(['serve'], { DATABASE_URL_FILE: path.join(dir, 'nope') }, { asUs: true });
    assertOneClearLine(missing, /DATABASE_URL_FILE: cannot read/, /ENOENT/);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing written');
  });
});

describe('the build is named, and migrations are logged', () => {
  it('teamstage --version prints the package version and the commit', async () => {
    const result = await runCli(['--version'], {}, { asUs: true });
    assert.equal(result.code, 0, result.output);
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    assert.match(result.output.trim(), new RegExp(`^teamstage ${pkg.version.replace(/\./g, '\\.')}\\+[0-9a-z.-]+$`));
  });

  it('each migration applied is a log line, and the schema reached another', async () => {
    const dir = scratch();
    const result = await runCli(['migrate'], { DATABASE_URL: `sqlite:${dir}/db.sqlite`, LOG_LEVEL: 'info' }, { asUs: true });
    assert.equal(result.code, 0, result.output);
    const lines = result.output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; migration?: string });
    const applied = lines.filter((line) => line.msg === 'migration applied').map((line) => line.migration);
    assert.ok(applied.length >= 12, `every migration logged: ${applied.join(', ')}`);
    assert.equal(applied[0], '001-identity-and-teams');
    assert.ok(lines.some((line) => line.msg === 'schema ready'));
  });
});
