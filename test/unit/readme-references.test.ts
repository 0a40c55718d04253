/**
 * Sections of the README that the README itself, the docs, the examples, the CLI and scripts send readers to
 * ("see \"Backups\"", "(README, \"Security\")") must exist: a commit once deleted three of them while the
 * pointers stayed. Every such reference names a heading of README.md; a missing one fails here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How the project refers to a README section: `see "X"`, `as in "X"`, `README, "X"`, `README's "X"`, `("X")` after README. */
const REFERENCE = /(?:\b[Ss]ee|\bas in|\bREADME,|\bREADME's|\bREADME section) "([A-Z][^"\n]{1,60})"/g;

function filesUnder(dir: string, accept: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full, accept);
    return accept(full) ? [full] : [];
  });
}

export function referencesIn(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1]!);
}

export function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+?)\s*$/.exec(line);
    if (heading) headings.add(heading[1]!);
  }
  return headings;
}

/** Files whose references point at README.md's sections (BENCHMARKS.md and RELIABILITY.md refer to their own). */
function referringFiles(): string[] {
  const text = (file: string) => /\.(md|ts|tsx|mjs|sh|yml)$/.test(file);
  return [
    path.join(ROOT, 'README.md'),
    ...filesUnder(path.join(ROOT, 'docs'), text),
    ...filesUnder(path.join(ROOT, 'examples'), text),
    ...filesUnder(path.join(ROOT, 'src'), text),
    ...filesUnder(path.join(ROOT, 'scripts'), text),
  ];
}

test('the reference finder sees every form the project uses, and headings outside code fences only', () => {
  assert.deepEqual(referencesIn('see "Security"; as in "Running several nodes"; (README, "Backups"); README\'s "Upgrades"'), [
    'Security',
    'Running several nodes',
    'Backups',
    'Upgrades',
  ]);
  assert.deepEqual([...headingsOf('# A\n```sh\n# not a heading\n```\n### Backups\n')], ['A', 'Backups']);
});

test('every README section referred to from the README, docs, examples, the CLI and scripts exists', () => {
  const headings = headingsOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const missing: string[] = [];
  let found = 0;
  for (const file of referringFiles()) {
    for (const section of referencesIn(fs.readFileSync(file, 'utf8'))) {
      found += 1;
      if (!headings.has(section)) missing.push(`${path.relative(ROOT, file)} refers to "${section}"`);
    }
  }
  assert.ok(found >= 5, `expected the project's references to be found, found ${found}`);
  assert.deepEqual(missing, [], `README.md has no such section:\n${missing.join('\n')}`);
});

test('the operating sections an operator needs are in the README', () => {
  const headings = headingsOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  for (const section of ['Operating it', 'Backups', 'Upgrades', 'Monitoring', 'Security', 'Running several nodes', 'Run it in a container']) {
    assert.ok(headings.has(section), `README.md lacks the section "${section}"`);
  }
});
