import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/postgres-server.js';

/**
 * `teamstage serve` and `teamstage token …` as real processes on 127.0.0.1 with a temporary SQLite
 * database: the site token is generated and printed once, kept in <data dir>/site-token (0600), survives a
 * restart without being printed again, and `token rotate` replaces it. SIGTERM exits 0.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'src/cli.ts');

interface Server {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
}

function environment(dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE_') || key === 'DATABASE_URL') delete env[key];
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: `sqlite:${path.join(dataDir, 'teamstage.sqlite')}`,
    TEAMSTAGE_RATE_LIMIT: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  try {
    // Bounded, not timed: tsx compiles the sources on start, which takes many seconds on a loaded 2-core machine.
    await waitFor('the server to answer /readyz', 90_000, async () => {
      if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1000) });
      return response.status === 200 ? true : undefined;
    });
    // /readyz answers once the server listens, a moment before the start prints its last lines (the site token,
    // then where it listens): what the start printed is judged once that last line is there.
    await waitFor('the start\'s last line', 30_000, async () => (LISTENING.test(output) ? true : undefined));
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { child, output: () => output, baseUrl };
}

/** SIGTERM and the exit code, bounded: a process that does not stop is killed and the test fails. */
async function stop(server: Server): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

async function statusWith(baseUrl: string, token: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v2/admin/users`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
  return response.status;
}

/** The start's last line (src/main.ts), printed after the site token's. */
const LISTENING = /"msg":"Teamstage is listening on /;
const TOKEN_PATTERN = /"msg":"Site admin token [^"]*","token":"([^"]+)"/;

describe('teamstage CLI: serve, site token, rotate, SIGTERM (real processes, SQLite)', () => {
  let dataDir: string;
  const running: Server[] = [];
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-cli-'));
  });
  after(async () => {
    for (const server of running) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start generates the site token, prints it once, writes <data dir>/site-token 0600; SIGTERM exits 0', async () => {
    const server = await startServer(environment(dataDir, await freePort()));
    running.push(server);
    const match = TOKEN_PATTERN.exec(server.output());
    assert.ok(match, `no site token printed:\n${server.output()}`);
    const token = match[1]!;
    assert.ok(token.length >= 43);
    assert.equal(server.output().split(token).length - 1, 1, 'the token appears exactly once in the output (not in logs)');

    const file = path.join(dataDir, 'site-token');
    assert.equal(fs.readFileSync(file, 'utf8').trim(), token);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    assert.equal(await statusWith(server.baseUrl, token), 200);
    assert.equal(await statusWith(server.baseUrl, `${token}x`), 401);
    const ping = await fetch(`${server.baseUrl}/api/v2/ping`);
    assert.equal(ping.status, 204);
    assert.equal(ping.headers.get('tfp-appname'), 'Teamstage');

    assert.equal(await stop(server), 0);
    assert.ok(/"msg":"stopping: no new work/.test(server.output()) && /"msg":"stopped"/.test(server.output()), 'pino JSON logs on stdout, the stop said');
  });

  it('a second start prints no token and the first one still works; token rotate invalidates it', async () => {
    const file = path.join(dataDir, 'site-token');
    const first = fs.readFileSync(file, 'utf8').trim();
    const env = environment(dataDir, await freePort());
    const server = await startServer(env);
    running.push(server);
    assert.doesNotMatch(server.output(), /Site admin token/);
    assert.ok(!server.output().includes(first));
    assert.equal(await statusWith(server.baseUrl, first), 200);

    const printed = await runCli(['token', 'print'], env);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout.trim(), first);

    const rotated = await runCli(['token', 'rotate'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const second = rotated.stdout.trim();
    assert.notEqual(second, first);
    assert.ok(second.length >= 43);
    assert.equal(fs.readFileSync(file, 'utf8').trim(), second);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    // The running server shares the database: the old token is gone, the new one works.
    assert.equal(await statusWith(server.baseUrl, first), 401);
    assert.equal(await statusWith(server.baseUrl, second), 200);
    assert.equal(await stop(server), 0);
  });

  it('TEAMSTAGE_SITE_TOKEN replaces the generated token and nothing is printed', async () => {
    const configured = `configured-${Math.random().toString(36).slice(2)}-site-token-value`;
    const previous = fs.readFileSync(path.join(dataDir, 'site-token'), 'utf8').trim();
    const server = await startServer(environment(dataDir, await freePort(), { TEAMSTAGE_SITE_TOKEN: configured }));
    running.push(server);
    assert.doesNotMatch(server.output(), /Site admin token/);
    assert.ok(!server.output().includes(configured), 'the configured token is never logged');
    assert.equal(await statusWith(server.baseUrl, configured), 200);
    assert.equal(await statusWith(server.baseUrl, previous), 401);
    assert.equal(fs.existsSync(path.join(dataDir, 'site-token')), false, 'the stale generated token file is removed');
    const printed = await runCli(['token', 'print'], environment(dataDir, await freePort()));
    assert.equal(printed.code, 1);
    assert.equal(await stop(server), 0);
  });

  it('an invalid configuration exits 1 with a message, without starting', async () => {
    const result = await runCli(['serve'], environment(dataDir, await freePort(), { TEAMSTAGE_RATE_LIMIT: 'lots' }));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /configuration error: TEAMSTAGE_RATE_LIMIT/);
    const usage = await runCli(['bogus'], environment(dataDir, await freePort()));
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /Usage:/);
  });
});
