/**
 * Issue 19: `teamstage backup` while a server runs and writes, `teamstage restore` into a new server.
 * Every write acknowledged before the backup began is in the restored server; the backup passes
 * integrity_check; a restore over a running server is refused and changes nothing; over a server killed
 * with SIGKILL it proceeds (no stale lock).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { bootstrapOrganization, HttpClient } from '../helpers/http-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs the CLI as an operator would; never throws, so a refusal's exit code and message can be checked. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), ...args], { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function teamNames(client: HttpClient, organization: string, token: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let page = 1; ; page++) {
    const list = await client.request('GET', `/organizations/${organization}/teams?page%5Bsize%5D=100&page%5Bnumber%5D=${page}`, token);
    assert.equal(list.status, 200, list.text);
    for (const team of list.body.data) names.add(team.attributes.name);
    if (list.body.meta.pagination['next-page'] === null) return names;
  }
}

function fileSnapshot(file: string): string {
  const stat = fs.statSync(file);
  return `${stat.size}:${stat.mtimeMs}`;
}

describe('backup and restore', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-backup-'));
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('backs up under a write load, restores into a new server with every acknowledged write, refuses over a running one', async () => {
    const siteToken = randomBytes(24).toString('hex');
    const liveDir = path.join(dir, 'live');
    const liveEnv = { DATABASE_URL: `sqlite:${path.join(liveDir, 'teamstage.sqlite')}`, TEAMSTAGE_SITE_TOKEN: siteToken, TEAMSTAGE_RATE_LIMIT: '0' };
    const live = await startServerProcess(liveEnv, { readyTimeoutMs: 90_000 });
    servers.push(live);
    const client = new HttpClient(live.url, 10);
    const { ownerToken, organization } = await bootstrapOrganization(client, siteToken, `bk${randomBytes(3).toString('hex')}`);

    // The write load: teams created by 8 writers until told to stop (bounded by count too).
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let stop = false;
    const writer = async (index: number) => {
      for (let n = 0; !stop && n < 5000; n++) {
        const name = `w${index}-${n}`;
        const response = await client.request('POST', `/organizations/${organization}/teams`, ownerToken, { data: { type: 'teams', attributes: { name } } });
        // Recorded, not thrown: a writer's failure surfaces in the assertion after the load, not as a stray rejection.
        if (response.status !== 200) return failures.push(`${response.status} ${response.text}`);
        acknowledged.push(name);
      }
    };
    const writers = Array.from({ length: 8 }, (_, index) => writer(index));
    // Under way first: 100 writes acknowledged (a count, not a time, so a loaded machine runs the same test), at most 30 s.
    for (const deadline = Date.now() + 30_000; acknowledged.length < 100 && failures.length === 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const backupFile = path.join(dir, 'teamstage-backup.sqlite');
    const beforeBackup = [...acknowledged];
    const backup = await cli(['backup', backupFile], liveEnv);
    const duringBackup = acknowledged.length - beforeBackup.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    await Promise.all(writers);
    assert.deepEqual(failures, []);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^wrote .*teamstage-backup\.sqlite \(\d+ bytes, integrity_check ok\)/);
    assert.match(backup.stdout, /1 organizations, \d+ teams/);
    assert.ok(beforeBackup.length >= 100, `the load was running when the backup began (${beforeBackup.length} writes acknowledged)`);
    assert.ok(acknowledged.length > beforeBackup.length, 'the load went on during and after the backup');

    const copy = new SQLite(backupFile, { readonly: true });
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    copy.close();

    // A restore over the running server: refused, clearly, and the database is as it was.
    const liveFile = path.join(liveDir, 'teamstage.sqlite');
    const namesBefore = await teamNames(client, organization, ownerToken);
    const snapshot = fileSnapshot(liveFile);
    const refused = await cli(['restore', backupFile], liveEnv);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /restore refused: .*teamstage\.sqlite is in use by another process \(a running Teamstage server\?\): stop every server using it.*Nothing was changed/);
    assert.equal(fileSnapshot(liveFile), snapshot);
    assert.deepEqual(fs.readdirSync(liveDir).filter((name) => name.includes('before-restore')), []);
    assert.deepEqual(await teamNames(client, organization, ownerToken), namesBefore);
    assert.deepEqual(acknowledged.filter((name) => !namesBefore.has(name)), [], 'every write is in the live server');
    await client.close();

    // Restored into a new data directory, a new server has every write acknowledged before the backup began.
    const restoredEnv = { ...liveEnv, DATABASE_URL: `sqlite:${path.join(dir, 'restored', 'teamstage.sqlite')}` };
    const restore = await cli(['restore', backupFile], restoredEnv);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^restored .*restored\/teamstage\.sqlite \(integrity_check ok\)/);
    assert.match(restore.stdout, /holds 1 organizations, \d+ teams/);
    const restoredServer = await startServerProcess(restoredEnv, { readyTimeoutMs: 90_000 });
    servers.push(restoredServer);
    const restoredClient = new HttpClient(restoredServer.url, 4);
    const restoredNames = await teamNames(restoredClient, organization, ownerToken);
    await restoredClient.close();
    const missing = beforeBackup.filter((name) => !restoredNames.has(name));
    assert.deepEqual(missing, [], 'every write acknowledged before the backup began is restored');
    assert.ok(restoredNames.size < namesBefore.size, 'the restored server has the backup, not the writes after it');
    // A server killed with SIGKILL leaves no lock behind (the kernel drops its locks): the restore proceeds.
    await live.kill('SIGKILL');
    const overKilled = await cli(['restore', backupFile], liveEnv);
    assert.equal(overKilled.code, 0, overKilled.stderr);
    assert.match(overKilled.stdout, /the database it replaced is kept at .*teamstage\.sqlite\.before-restore-\d{8}T\d{6}Z/);

    console.log(
      `backup under load: ${beforeBackup.length} writes acknowledged before it began, ${duringBackup} while it ran, ` +
        `${acknowledged.length} in all; restored server has ${restoredNames.size} teams, none missing`,
    );
  });
});
