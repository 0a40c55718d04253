import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILD_OUTPUT, buildIsStale } from '../../scripts/build-if-stale.mjs';

/** `npm start` rebuilds only when a source is newer than the build (scripts/build-if-stale.mjs). */
function checkout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-build-'));
  fs.mkdirSync(path.join(root, 'src/teams'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/teams/teams.service.ts'), 'export {};\n');
  fs.writeFileSync(path.join(root, 'package.json'), '{}\n');
  return root;
}

function setTime(file: string, secondsAgo: number): void {
  const time = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(file, time, time);
}

function build(root: string, secondsAgo: number): void {
  const output = path.join(root, BUILD_OUTPUT);
  fs.mkdirSync(path.dirname(output), { recursive: true });
  fs.writeFileSync(output, '');
  setTime(output, secondsAgo);
}

function ageInputs(root: string, secondsAgo: number): void {
  for (const file of ['src/teams/teams.service.ts', 'src/teams', 'src', 'package.json']) setTime(path.join(root, file), secondsAgo);
}

describe('build-if-stale', () => {
  it('is stale when nothing was built yet', () => {
    assert.equal(buildIsStale(checkout()), true);
  });

  it('is fresh when the build is newer than every input', () => {
    const root = checkout();
    ageInputs(root, 60);
    build(root, 10);
    assert.equal(buildIsStale(root), false);
  });

  it('is stale when a source file changed after the build', () => {
    const root = checkout();
    ageInputs(root, 60);
    build(root, 10);
    setTime(path.join(root, 'src/teams/teams.service.ts'), 1);
    assert.equal(buildIsStale(root), true);
  });

  it('is stale when a source file was deleted after the build (its directory changed)', () => {
    const root = checkout();
    fs.writeFileSync(path.join(root, 'src/teams/old.ts'), 'export {};\n');
    ageInputs(root, 60);
    build(root, 10);
    fs.rmSync(path.join(root, 'src/teams/old.ts'));
    assert.equal(buildIsStale(root), true);
  });

  it('is stale when package.json changed after the build', () => {
    const root = checkout();
    ageInputs(root, 60);
    build(root, 10);
    setTime(path.join(root, 'package.json'), 1);
    assert.equal(buildIsStale(root), true);
  });
});
