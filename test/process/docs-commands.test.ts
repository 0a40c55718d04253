/**
 * Issue 35: the commands in README.md and docs/ work as written. Every ```sh block there is preceded by a
 * marker naming who runs it:
 *
 *   <!-- commands run by: test/process/docs-commands.test.ts -->    (this file, below)
 *   <!-- commands run by: <another test file> -->                    (that file reads the document)
 *   <!-- commands not run by a test: <why> -->                      (said, so the gap is visible)
 *
 * (docs/pipeline.md's job snippet keeps its older `pipeline-snippet:` marker, read by pipeline-cli.test.ts.)
 * The first part checks the markers; the second runs the blocks this file owns: the README's walk-through
 * with curl and then docs/pipeline.md's steps 1 to 3 in the same shell (they use its variables), against a
 * real server process, with its data directory's `data/site-token` where the README reads it. The only
 * change made to the text: the addresses 127.0.0.1:8080 (the server) and 127.0.0.1:8090 (the example run
 * task service) become free ports, so the test never collides with what else runs on the machine.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../helpers/http-client.js';
import { freePort } from '../helpers/postgres-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const THIS_FILE = 'test/process/docs-commands.test.ts';
const DOCUMENTS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const MARKER = /<!-- (?:commands run by: (\S+)|pipeline-snippet: (\S+)[^>]*|commands not run by a test: ([^>]+)) -->\s*$/;

interface ShellBlock {
  document: string;
  line: number;
  text: string;
  /** The test file that runs it, or undefined with `notRunBecause`. */
  runBy?: string;
  notRunBecause?: string;
}

function shellBlocks(document: string): ShellBlock[] {
  const lines = fs.readFileSync(path.join(ROOT, document), 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```sh') continue;
    const end = lines.indexOf('```', index + 1);
    assert.ok(end > index, `${document}:${index + 1}: a shell block that never ends`);
    let before = index - 1;
    while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
    const marker = MARKER.exec(lines[before] ?? '');
    blocks.push({ document, line: index + 1, text: lines.slice(index + 1, end).join('\n'), runBy: marker?.[1] ?? marker?.[2], notRunBecause: marker?.[3] });
    index = end;
  }
  return blocks;
}

const ALL_BLOCKS = DOCUMENTS.flatMap(shellBlocks);

describe('docs: every shell block says which test runs it', () => {
  it('each block is marked, and the test it names exists and reads that document', () => {
    assert.ok(ALL_BLOCKS.length >= 10, `found only ${ALL_BLOCKS.length} shell blocks: is the block syntax still \`\`\`sh?`);
    const unmarked = ALL_BLOCKS.filter((block) => !block.runBy && !block.notRunBecause).map((block) => `${block.document}:${block.line}`);
    assert.deepEqual(unmarked, [], 'shell blocks with no `<!-- commands run by: … -->` marker');
    for (const block of ALL_BLOCKS.filter((candidate) => candidate.runBy)) {
      const runner = path.join(ROOT, block.runBy!);
      assert.ok(fs.existsSync(runner), `${block.document}:${block.line} names ${block.runBy}, which does not exist`);
      assert.ok(fs.readFileSync(runner, 'utf8').includes(block.document), `${block.runBy} never reads ${block.document} (${block.document}:${block.line} says it runs a block of it)`);
    }
  });

  it('the blocks not run by a test are few and each says why', () => {
    const notRun = ALL_BLOCKS.filter((block) => block.notRunBecause);
    for (const block of notRun) assert.ok(block.notRunBecause!.trim().length >= 20, `${block.document}:${block.line}: say why it is not run`);
    // Printed, so every run of the suite shows the gap.
    console.log(`# shell blocks not run by a test: ${notRun.map((block) => `${block.document}:${block.line}`).join(', ') || 'none'}`);
  });
});

/** This file's blocks of `document`, in order. */
function ownBlocks(document: string): string[] {
  return ALL_BLOCKS.filter((block) => block.document === document && block.runBy === THIS_FILE).map((block) => block.text);
}

describe("docs: the README's walk-through with curl, then docs/pipeline.md's steps 1-3, as written", { timeout: 180_000 }, () => {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-docs-'));
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill('SIGTERM');
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('makes the user, organization, team, member, agent pool, token, workspace and mandatory task they say', async () => {
    const walkThrough = ownBlocks('README.md');
    const pipelineSteps = ownBlocks('docs/pipeline.md');
    assert.equal(walkThrough.length, 1, "the README's walk-through block");
    assert.equal(pipelineSteps.length, 3, "docs/pipeline.md's steps 1, 2 and 3");
    const dataDir = path.join(workDir, 'data');
    server = await startServerProcess({ TEAMSTAGE_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'teamstage.sqlite')}`, TEAMSTAGE_RATE_LIMIT: '0' });
    const servicePort = await freePort();
    // The blocks run from a checkout's root: `data/site-token` and `examples/` are where they say.
    fs.symlinkSync(path.join(ROOT, 'examples'), path.join(workDir, 'examples'));
    const script = [...walkThrough, ...pipelineSteps]
      .join('\n')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`)
      .replaceAll('127.0.0.1:8090', `127.0.0.1:${servicePort}`);
    // The service step starts `node examples/run-task-service/server.mjs &`: PORT tells it the free port.
    // Run as typed in a terminal (no `set -e`): every answer is checked below instead.
    const shell = runShell(`${script}\necho "TASK=$TASK WS=$WS POOL=$POOL"`, workDir, { PORT: String(servicePort) }, []);
    const code = await shell.exited;
    const output = shell.output();
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /"errors"/, 'an answer in the walk-through was an error');
    const ids = /TASK=(task-\S+) WS=(ws-\S+) POOL=(apool-\S+)/.exec(output);
    assert.ok(ids, `the steps set TASK, WS and POOL:\n${output}`);

    const siteToken = fs.readFileSync(path.join(dataDir, 'site-token'), 'utf8').trim();
    const http = new HttpClient(server.url);
    try {
      const users = await http.request('GET', '/admin/users', siteToken);
      const alice = users.body.data.find((user: any) => user.attributes.username === 'alice');
      const aliceToken = (await http.request('POST', `/users/${alice.id}/authentication-tokens`, siteToken)).body.data.attributes.token;
      const teams = await http.request('GET', '/organizations/acme/teams?include=users', aliceToken);
      const platform = teams.body.data.find((team: any) => team.attributes.name === 'platform');
      assert.equal(platform.attributes['organization-access']['manage-workspaces'], true);
      assert.equal(platform.attributes['organization-access']['manage-run-tasks'], true);
      const bob = users.body.data.find((user: any) => user.attributes.username === 'bob');
      assert.deepEqual(platform.relationships.users.data.map((user: any) => user.id), [bob.id]);
      const workspace = await http.request('GET', `/workspaces/${ids[2]}`, aliceToken);
      assert.equal(workspace.body.data.attributes.name, 'network');
      assert.equal(workspace.body.data.attributes['execution-mode'], 'agent');
      assert.deepEqual(workspace.body.data.relationships['agent-pool'].data, { id: ids[3], type: 'agent-pools' });
      const attached = await http.request('GET', `/workspaces/${ids[2]}/tasks`, aliceToken);
      assert.deepEqual(attached.body.data.map((task: any) => [task.relationships.task.data.id, task.attributes['enforcement-level'], task.attributes.stages]), [[ids[1], 'mandatory', ['post_plan']]]);
    } finally {
      await http.close();
    }
  });
});

/**
 * Runs `script` in bash from `cwd` in a process group of its own (bash `flags`: `-euo pipefail` unless given).
 * `exited` answers the shell's exit code once the shell has exited and whatever it left running in the
 * background (the example service) is stopped, so its output is whole; bounded at 120 s. `stop` signals
 * the group (a server the script runs in the foreground).
 */
function runShell(script: string, cwd: string, env: Record<string, string>, flags = ['-euo', 'pipefail']) {
  const shell = spawn('bash', [...flags, '-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  shell.stdout.on('data', (chunk) => (output += chunk));
  shell.stderr.on('data', (chunk) => (output += chunk));
  const stop = (signal: NodeJS.Signals) => {
    try {
      process.kill(-shell.pid!, signal);
    } catch {
      // already gone
    }
  };
  const closed = new Promise<void>((resolve) => shell.on('close', () => resolve()));
  const exited = (async () => {
    const killer = setTimeout(() => stop('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => shell.on('exit', resolve));
    stop('SIGTERM'); // what it started in the background holds its output pipes open
    await closed;
    clearTimeout(killer);
    return code;
  })();
  return { exited, output: () => output, stop };
}

describe("docs: docs/operations.md's backup and restore test, as written, with the `teamstage` command on PATH", { timeout: 240_000 }, () => {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-docs-backup-'));
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill('SIGTERM');
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('backs up a serving node into the backup folder, restores it into a scratch database and serves the same teams', async () => {
    const [backup, restore] = ownBlocks('docs/operations.md');
    assert.ok(backup && restore, "docs/operations.md's backup block and its restore test");
    // `npm link` puts the package's bin (the bundle) on PATH; here a `teamstage` that runs this checkout's bundle,
    // rebuilt first when a source is newer (scripts/start.mjs, as `npm start`).
    const bin = path.join(workDir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'teamstage'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'scripts/start.mjs')}" "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'warn', TEAMSTAGE_RATE_LIMIT: '0' };
    // The node being backed up: the default database, ./data/teamstage.sqlite, of the folder the commands run in.
    const dataDir = path.join(workDir, 'data');
    server = await startServerProcess({ TEAMSTAGE_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'teamstage.sqlite')}`, TEAMSTAGE_RATE_LIMIT: '0' });
    const siteToken = fs.readFileSync(path.join(dataDir, 'site-token'), 'utf8').trim();
    const http = new HttpClient(server.url);
    const restoredPort = await freePort();
    try {
      assert.equal((await http.request('POST', '/organizations', siteToken, { data: { type: 'organizations', attributes: { name: 'kept', email: 'ops@kept.example' } } })).status, 201);
      assert.equal((await http.request('POST', '/organizations/kept/teams', siteToken, { data: { type: 'teams', attributes: { name: 'restored-team' } } })).status, 200); // the seed answers a created team with 200
      // The only changes to the text: the folders /backups and /tmp/restore-test live in this test's folder,
      // the example backup's date is today's, and the restored server listens on a free port.
      const today = new Date().toISOString().slice(0, 10);
      const local = (text: string) =>
        text.replaceAll('/backups/', `${workDir}/backups/`).replaceAll('/tmp/restore-test/', `${workDir}/restore-test/`).replaceAll('2026-11-24', today).replaceAll('PORT=18080', `PORT=${restoredPort}`);
      fs.mkdirSync(path.join(workDir, 'backups'));
      const backedUp = runShell(local(backup), workDir, env);
      assert.equal(await backedUp.exited, 0, backedUp.output());
      assert.equal(fs.statSync(path.join(workDir, 'backups', `teamstage-${today}.sqlite`)).mode & 0o777, 0o600, 'the backup is private');

      const restored = runShell(local(restore), workDir, { ...env, HOST: '127.0.0.1' });
      try {
        const deadline = Date.now() + 120_000;
        let teams: Awaited<ReturnType<HttpClient['request']>> | undefined;
        const restoredHttp = new HttpClient(`http://127.0.0.1:${restoredPort}`);
        try {
          while (!teams || teams.status !== 200) {
            assert.ok(Date.now() < deadline, `the restored server never answered:\n${restored.output()}`);
            teams = await restoredHttp.request('GET', '/organizations/kept/teams', siteToken).catch(() => undefined);
            if (!teams) await new Promise((resolve) => setTimeout(resolve, 200));
          }
        } finally {
          await restoredHttp.close();
        }
        assert.deepEqual(teams.body.data.map((team: any) => team.attributes.name).sort(), ['owners', 'restored-team']);
      } finally {
        restored.stop('SIGTERM');
        await restored.exited;
      }
    } finally {
      await http.close();
    }
  });
});
