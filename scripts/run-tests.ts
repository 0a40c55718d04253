/**
 * `npm test`: starts one throwaway PostgreSQL for the whole run, then runs every test file with node's
 * built-in runner: unit and HTTP tests first (two at a time, while go-tfe and tofu build in the background),
 * then the process tests (test/process: the built server and CLI, two at a time), then the system tests (real
 * processes, load, faults), the browser tests (test/browser: the web console in Debian's chromium) and the real
 * clients (test/realclients: go-tfe's own tests and tofu, built by scripts/build-real-clients.sh), one file at a time.
 * HTTP tests run each case on SQLite and on that PostgreSQL (TEAMSTAGE_TEST_PG_URL).
 * Set TEAMSTAGE_TEST_DIALECTS=sqlite to skip PostgreSQL. `--system` runs only test/system; `--fast`
 * everything but test/system. Other arguments are test files to run instead of all. At the end it prints
 * where the time went: each ring's wall time and slowest files (scripts/test-file-times.mjs).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test/helpers/postgres-server.js';
import { realClientsDir } from '../test/helpers/real-clients.js';

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

interface FileTime {
  file: string;
  wallMs: number;
  testsMs: number;
  exitWaitMs: number;
  failed: boolean;
}

/** Each file's wall time, per ring, recorded by scripts/test-file-times.mjs (one JSON line per file). */
const fileTimes: { ring: string; ringMs: number; files: FileTime[] }[] = [];

function runNodeTests(ring: string, files: string[], concurrency: number, env: NodeJS.ProcessEnv): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  const timesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-file-times-')), 'times.jsonl');
  const started = Date.now();
  return new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`,
        // The usual report (spec on a terminal, TAP in CI's log), and each file's wall time beside it.
        `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`, '--test-reporter-destination=stdout',
        '--test-reporter=./scripts/test-file-times.mjs', `--test-reporter-destination=${timesFile}`,
        ...files,
      ],
      { stdio: 'inherit', env },
    );
    child.on('exit', (code, signal) => {
      const lines = fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').split('\n').filter(Boolean) : [];
      fileTimes.push({ ring, ringMs: Date.now() - started, files: lines.map((line) => JSON.parse(line) as FileTime) });
      fs.rmSync(path.dirname(timesFile), { recursive: true, force: true });
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * Where the run's time went: each ring's wall time and its slowest files. "outside tests" is a file's wall time
 * less its top-level tests' (module loading, and a process that lingers on an open handle after its last test);
 * files whose process outlived its last test by more than 3 s are named (a timer, server or connection left open).
 * TEAMSTAGE_TEST_SLOWEST sets how many files per ring are listed (10 by default).
 */
function printFileTimes(): void {
  const shown = Number(process.env.TEAMSTAGE_TEST_SLOWEST ?? 10);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(9);
  console.log('\n# where the time went (wall time per ring; per file: wall, outside its tests)');
  const lingering = fileTimes.flatMap(({ files }) => files.filter((file) => file.exitWaitMs > 3000));
  for (const { ring, ringMs, files } of fileTimes) {
    const sum = files.reduce((total, file) => total + file.wallMs, 0);
    const outside = files.reduce((total, file) => total + Math.max(0, file.wallMs - file.testsMs), 0);
    console.log(`# ${ring}: ${seconds(ringMs)} wall, ${files.length} files, ${seconds(sum)} of file time (${seconds(outside)} outside tests)`);
    for (const file of [...files].sort((a, b) => b.wallMs - a.wallMs).slice(0, shown)) {
      console.log(`#   ${seconds(file.wallMs)} ${seconds(Math.max(0, file.wallMs - file.testsMs))}  ${file.file}${file.failed ? ' (failed)' : ''}`);
    }
  }
  for (const file of lingering) console.log(`# ${file.file}: its process ended ${seconds(file.exitWaitMs).trim()} after its last test (a handle left open?)`);
}

/**
 * The real clients the tests drive (go-tfe's tests, tofu) and the policy engine (OPA), at the versions pinned
 * in the repository, built with Go by scripts/build-real-clients.sh: minutes on a clean machine, a second
 * once built. Done here, so that `npm test` alone works on a fresh machine. OPA is built first and waited for
 * (unit and HTTP tests judge policies with it); go-tfe and tofu, the long part of a clean build, are built
 * niced in the background while the unit and HTTP tests run, since those leave a core mostly idle.
 */
function buildOpa(): string {
  const built = spawnSync('bash', ['scripts/build-real-clients.sh', 'opa'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building OPA failed (scripts/build-real-clients.sh; it needs Go: /usr/local/go/bin/go)');
  return path.join(realClientsDir(), 'bin');
}

/** Resolves once go-tfe and tofu are built; their output is held back and printed whole, so it never splits a test report. */
function buildClientsInBackground(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['scripts/build-real-clients.sh', 'go-tfe', 'tofu'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString();
      if (code === 0) {
        process.stdout.write(text.split('\n').filter((line) => line.startsWith('build-real-clients:')).join('\n') + '\n');
        resolve();
      } else {
        reject(new Error(`building go-tfe and tofu failed (scripts/build-real-clients.sh exited with ${code}):\n${text}`));
      }
    });
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const clientsBin = buildOpa();
  const files = args.filter((arg) => !arg.startsWith('--'));
  const all = testFiles('test').sort();
  // Browser tests (test/browser: chromium against a real server on SQLite) and real clients (test/realclients:
  // real processes, minutes each) run with the system ring.
  const isSystem = (file: string) => ['system', 'browser', 'realclients'].some((ring) => file.split(path.sep).includes(ring));
  // Process tests start the built server and CLI, and one drives the real tofu: they wait for the clients' build.
  const isProcess = (file: string) => file.split(path.sep).includes('process');
  const chosen = files.length > 0 ? files : all;
  let fast = chosen.filter((file) => !isSystem(file) && !isProcess(file));
  let processes = chosen.filter(isProcess);
  let system = chosen.filter(isSystem);
  if (args.includes('--system')) fast = processes = [];
  if (args.includes('--fast')) system = [];
  const clientsBuilt = processes.length + system.length > 0 ? buildClientsInBackground() : Promise.resolve();
  // An unhandled rejection would end the run before the tests report; the failure is awaited below.
  clientsBuilt.catch(() => {});
  const usePostgres = (process.env.TEAMSTAGE_TEST_DIALECTS ?? 'sqlite,postgres').includes('postgres');
  let postgres: ThrowawayPostgres | undefined;
  if (usePostgres) {
    postgres = await startThrowawayPostgres();
    console.log(`throwaway PostgreSQL ready at ${postgres.adminUrl.replace(/:[^:@/]+@/, ':***@')}`);
  }
  try {
    const env = {
      ...process.env,
      TEAMSTAGE_TEST_PG_URL: postgres?.adminUrl ?? '',
      TEAMSTAGE_OPA_PATH: process.env.TEAMSTAGE_OPA_PATH || path.join(clientsBin, 'opa'),
    };
    const fastCode = await runNodeTests('unit and HTTP', fast, 2, env);
    await clientsBuilt;
    const processCode = await runNodeTests('process', processes, 2, env);
    // System tests load the machine themselves: one file at a time, so their figures mean something.
    const systemCode = await runNodeTests('system, browser, real clients', system, 1, env);
    return fastCode || processCode || systemCode;
  } finally {
    printFileTimes();
    await postgres?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
