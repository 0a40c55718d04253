/**
 * Each table has one owning repository (issue 15, docs/development.md, "Development"): only the files of one folder
 * of src/ write a table; a statement that writes other tables too composes pieces their owners export.
 * This reads the source for Kysely's writes naming a table (insertInto, updateTable, deleteFrom) and
 * for the tables of multi-table inserts (`table: '…'`, db/multi-table-insert.ts); migrations are left
 * out (they shape every table).
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const WRITE = /\b(?:insertInto\(|updateTable\(|deleteFrom\(|table:)\s*'([a-z_]+)'/g;

/**
 * Writes outside the owner not moved yet, each `table folder`: the lock writes (a no-op update that
 * takes a parent row's lock) and the team deletion that deletes the team's tokens with it.
 */
const KNOWN_ELSEWHERE = new Set(['organizations identity', 'organizations runtasks', 'teams identity', 'tokens teams']);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${path.sep}migrations${path.sep}`));
}

async function writersByTable(): Promise<Map<string, Set<string>>> {
  const writers = new Map<string, Set<string>>();
  for (const file of await sourceFiles(SRC)) {
    const folder = path.relative(SRC, file).split(path.sep)[0]!;
    for (const match of (await readFile(file, 'utf8')).matchAll(WRITE)) {
      if (KNOWN_ELSEWHERE.has(`${match[1]} ${folder}`)) continue;
      const folders = writers.get(match[1]!) ?? new Set<string>();
      folders.add(folder);
      writers.set(match[1]!, folders);
    }
  }
  return writers;
}

test('every table is written from the files of one folder of src/', async () => {
  const shared = [...(await writersByTable())].filter(([, folders]) => folders.size > 1).map(([table, folders]) => `${table}: ${[...folders].join(', ')}`);
  assert.deepEqual(shared, []);
});

test('jobs, task stages and task results are written by their owners', async () => {
  const writers = await writersByTable();
  assert.deepEqual([...(writers.get('jobs') ?? [])], ['jobs']);
  assert.deepEqual([...(writers.get('task_stages') ?? [])], ['taskstages']);
  assert.deepEqual([...(writers.get('task_results') ?? [])], ['taskstages']);
});
