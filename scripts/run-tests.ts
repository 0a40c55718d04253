/**
 * `npm test`: starts one throwaway PostgreSQL for the whole run, then runs every test file with node's
 * built-in runner: unit and HTTP tests first (two at a time, while go-tfe and tofu build in the background),
 * then the process tests (test/process: the built server and CLI, two at a time), then the system tests (real
 * processes, load, faults), the browser tests (test/browser: the web console in Debian's chromium) and the real
 * clients (test/realclients: go-tfe's own tests and tofu, built by scripts/build-real-clients.sh), one file at a time.
 * HTTP tests run each case on SQLite and on that PostgreSQL (TEAMSTAGE_TEST_PG_URL).
 * Set TEAMSTAGE_TEST_DIALECTS=sqlite to skip PostgreSQL. `--system` runs only test/system; `--fast`
 * everything but test/system. Other arguments are test files to run instead of all.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
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

function runNodeTests(files: string[], concurrency: number, env: NodeJS.ProcessEnv): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  return new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
      stdio: 'inherit',
      env,
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
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
    const fastCode = await runNodeTests(fast, 2, env);
    await clientsBuilt;
    const processCode = await runNodeTests(processes, 2, env);
    // System tests load the machine themselves: one file at a time, so their figures mean something.
    const systemCode = await runNodeTests(system, 1, env);
    return fastCode || processCode || systemCode;
  } finally {
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
