/**
 * No file in src/ over 350 lines (issue 35): a file that grows past it holds more than one concept, and the next
 * engineer reads it whole to change one. Split it by audience or by area (as src/db/schema/ and
 * src/taskstages/ are). Generated or vendored files have no place in src/, so there is no exception list.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 350;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mjs|cjs|js|css)$/.test(entry.name) ? [full] : [];
  });
}

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles(path.join(ROOT, 'src'));
  assert.ok(files.length > 100, `expected src/'s files, found ${files.length}`);
  const long = files
    .map((file) => ({ file: path.relative(ROOT, file), lines: fs.readFileSync(file, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  assert.deepEqual(long, [], 'files to split');
});
