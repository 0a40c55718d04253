/**
 * The `teamstage` CLI as a real process, for tests of what an operator reads when something is wrong at start.
 * File permissions bind no root process, so as root the CLI runs as `nobody` (uid 65534) unless asked not to.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './postgres-server.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'src/cli.ts');
export const asRoot = process.getuid?.() === 0;
export const NOBODY = 65534;

/** `teamstage <args>` to its exit (killed after 30 s), as an unprivileged user when we are root. */
export async function runCli(args: string[], extra: Record<string, string>, options: { asUs?: boolean } = {}): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('TEAMSTAGE_') || key === 'DATABASE_URL') delete env[key];
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...env, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot && !options.asUs ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Bounded, not timed: tsx compiles the sources on start, which takes many seconds on a loaded 2-core machine.
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

/** A directory the unprivileged server may write, or may not. */
export function directory(writable: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-storage-'));
  if (asRoot) {
    if (writable) fs.chownSync(dir, NOBODY, NOBODY);
    fs.chmodSync(dir, 0o755);
  } else if (!writable) {
    fs.chmodSync(dir, 0o555);
  }
  return dir;
}

export function assertOneClearLine(result: { code: number | null; output: string }, ...patterns: RegExp[]) {
  assert.notEqual(result.code, 0, result.output);
  assert.notEqual(result.code, null, `the process did not stop by itself:\n${result.output}`);
  assert.doesNotMatch(result.output, /^\s+at /m, `a stack trace:\n${result.output}`);
  const lines = result.output.trim().split('\n');
  assert.equal(lines.length, 1, `one line:\n${result.output}`);
  for (const pattern of patterns) assert.match(lines[0]!, pattern);
}

/** The CLI as the test's own user (root: may write anything), to prepare a database. */
export async function runAsUs(args: string[], extra: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env: { ...process.env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, output };
}

export function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
