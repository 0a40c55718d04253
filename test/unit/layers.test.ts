/**
 * The import rule between layers (.dependency-cruiser.cjs, README "Development"): a module imports only
 * from layers below it. The first test checks src/ itself; the second proves the rules catch a backward
 * import, on a two-file tree (test/fixtures/layers) where core imports a domain.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

function cruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

test('src/ imports only from layers below each module', async () => {
  const { code, output } = await cruise(ROOT);
  assert.equal(code, 0, `backward imports:\n${output}`);
});

test('a backward import (core importing a domain) is caught', async () => {
  const { code, output } = await cruise(path.join(ROOT, 'test/fixtures/layers'));
  assert.notEqual(code, 0);
  assert.match(output, /core-imports-only-below: src\/core\/backward-import\.ts → src\/teams\/team\.ts/);
});

test('the web console importing server code is caught (src/web is an island)', async () => {
  const { code, output } = await cruise(path.join(ROOT, 'test/fixtures/layers'));
  assert.notEqual(code, 0);
  assert.match(output, /web-is-an-island: src\/web\/server-import\.ts → src\/teams\/team\.ts/);
});
