/**
 * `npm test`: starts one throwaway PostgreSQL for the whole run, then runs every test file with node's
 * built-in runner. HTTP tests run each case on SQLite and on that PostgreSQL (TEAMSTAGE_TEST_PG_URL).
 * Set TEAMSTAGE_TEST_DIALECTS=sqlite to skip PostgreSQL. Extra arguments are test files to run instead of all.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test/helpers/postgres-server.js';

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'system' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

async function main(): Promise<number> {
  const files = process.argv.slice(2);
  const selected = files.length > 0 ? files : testFiles('test').sort();
  const usePostgres = (process.env.TEAMSTAGE_TEST_DIALECTS ?? 'sqlite,postgres').includes('postgres');
  let postgres: ThrowawayPostgres | undefined;
  if (usePostgres) {
    postgres = await startThrowawayPostgres();
    console.log(`throwaway PostgreSQL ready at ${postgres.adminUrl.replace(/:[^:@/]+@/, ':***@')}`);
  }
  try {
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...selected], {
        stdio: 'inherit',
        env: { ...process.env, TEAMSTAGE_TEST_PG_URL: postgres?.adminUrl ?? '' },
      });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
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
