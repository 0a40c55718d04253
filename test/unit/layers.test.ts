/**
 * The layer rule (layers.cjs, .dependency-cruiser.cjs, docs/development.md, "Development"): every file under src/ belongs to
 * exactly one declared layer, and a module imports only from its own layer and the layers below it; nothing
 * under src/ imports test/, bench/ or scripts/. The first tests check src/ itself; the others prove the rule
 * the way its holes were found, on a tree of probe files (test/fixtures/layers) that must each fail it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROBES = path.join(ROOT, 'test/fixtures/layers');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

interface Layer {
  name: string;
  paths: string[];
}
const { LEVELS, ISLANDS } = createRequire(import.meta.url)(path.join(ROOT, 'layers.cjs')) as { LEVELS: Layer[][]; ISLANDS: Layer[] };
const LAYERS: Layer[] = [...LEVELS.flat(), ...ISLANDS];

function cruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/** The layers a file of src/ (path relative to src/, with /) belongs to: a folder's, or a top-level file's own. */
function layersOf(file: string): string[] {
  return LAYERS.filter((layer) => layer.paths.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry))).map((layer) => layer.name);
}

/** Every file under `<root>/src` that belongs to no declared layer or to more than one, with what to do about it. */
function misplacedFiles(root: string): string[] {
  return filesUnder(path.join(root, 'src')).flatMap((full) => {
    const file = path.relative(path.join(root, 'src'), full).split(path.sep).join('/');
    const layers = layersOf(file);
    if (layers.length === 1) return [];
    const where = file.includes('/') ? `its folder '${file.split('/')[0]}/'` : `'${file}'`;
    return layers.length === 0
      ? [`src/${file} belongs to no layer: declare ${where} in layers.cjs (in the layer it belongs to, or a new layer at its place in LEVELS) and in docs/development.md's layer list`]
      : [`src/${file} belongs to ${layers.length} layers (${layers.join(', ')}): declare it in one only (layers.cjs)`];
  });
}

describe('the layer rule', () => {
  it('every file under src/ belongs to exactly one declared layer', () => {
    assert.deepEqual(misplacedFiles(ROOT), []);
  });

  it('src/ imports only from layers below each module, and never test/, bench/ or scripts/', async () => {
    const { code, output } = await cruise(ROOT);
    assert.equal(code, 0, `backward imports:\n${output}`);
  });

  it('a probe folder and a probe top-level file that no layer declares fail it, saying how to declare them', () => {
    const misplaced = misplacedFiles(PROBES);
    assert.ok(misplaced.some((line) => line.startsWith("src/policy/policy.ts belongs to no layer: declare its folder 'policy/' in layers.cjs")), misplaced.join('\n'));
    assert.ok(misplaced.some((line) => line.startsWith("src/worker.ts belongs to no layer: declare 'worker.ts' in layers.cjs")), misplaced.join('\n'));
    assert.equal(misplaced.length, 2, misplaced.join('\n'));
  });

  it('probe imports fail it: core importing a domain, the console importing server code, src/ importing test/, bench/ and scripts/', async () => {
    const { code, output } = await cruise(PROBES);
    assert.notEqual(code, 0);
    for (const violation of [
      /core-imports-only-below: src\/core\/backward-import\.ts → src\/teams\/team\.ts/,
      /web-is-an-island: src\/web\/server-import\.ts → src\/teams\/team\.ts/,
      /src-imports-no-tests-or-tools: src\/core\/imports-test\.ts → test\/helpers\/probe-helper\.ts/,
      /src-imports-no-tests-or-tools: src\/core\/imports-bench\.ts → bench\/probe-bench\.ts/,
      /src-imports-no-tests-or-tools: src\/http\/imports-scripts\.ts → scripts\/probe-script\.ts/,
    ]) {
      assert.match(output, violation);
    }
  });
});
